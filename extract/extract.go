// Package extract holds the constraint appliers of the engine: line and
// byte ranges over a stream, markdown sections, structured parsing with jq
// projection, and format detection.
//
// It is a leaf package: it imports no other package of this module. Its
// errors wrap the exported sentinel errors below, so that the engine maps
// them to error codes with errors.Is.
package extract

import (
	"github.com/retrieve-dev/retrieve/internal/sentinel"
)

var (
	// ErrBadRange is wrapped by errors about a malformed line or byte range
	// such as "abc", "5-2", "0-3" or one with an empty part.
	ErrBadRange = sentinel.BadRange
	// ErrRangeNotFound is wrapped by errors about ranges that all start
	// past the end of the document.
	ErrRangeNotFound = sentinel.RangeNotFound
	// ErrSectionNotFound is wrapped by errors about a section selector that
	// matches no heading; see SectionNotFoundError.
	ErrSectionNotFound = sentinel.SectionNotFound
	// ErrSelect is wrapped by errors about an invalid jq expression or a jq
	// runtime error.
	ErrSelect = sentinel.Select
	// ErrParse is wrapped by errors about malformed JSON, YAML, TOML or CSV.
	ErrParse = sentinel.Parse
	// ErrNotStructured is wrapped by errors about a structured operation
	// (parsing, jq) asked of a format that is not json, yaml, toml or csv.
	ErrNotStructured = sentinel.NotStructured
	// ErrTooLarge is wrapped by errors about a result that exceeds a limit.
	ErrTooLarge = sentinel.TooLarge
	// ErrJQMemory is wrapped by errors about a jq expression that needs
	// more memory than its sandbox allows.
	ErrJQMemory = sentinel.JQMemory
	// ErrJQBusy is wrapped by errors about a jq expression that waited
	// longer than JQSandbox.SlotWait for a child slot: it never ran.
	ErrJQBusy = sentinel.JQBusy
	// ErrTimeout is wrapped by errors about a jq expression that ran past
	// its deadline.
	ErrTimeout = sentinel.Timeout
)

// BOM is the UTF-8 byte order mark.
const BOM = "\xef\xbb\xbf"
