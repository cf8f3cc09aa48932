// Package extract holds the constraint appliers of the engine: line and
// byte ranges over a stream, markdown sections, structured parsing with jq
// projection, and format detection. It is a leaf package: it imports no
// other package of this module; the engine maps its sentinel errors to
// error codes.
package extract

import "errors"

// Sentinel errors; they are wrapped with context.
var (
	ErrBadRange        = errors.New("invalid range")
	ErrRangeNotFound   = errors.New("range not found")
	ErrSectionNotFound = errors.New("section not found")
	ErrSelect          = errors.New("select failed")
	ErrParse           = errors.New("parse failed")
	ErrNotStructured   = errors.New("not structured data")
	ErrTooLarge        = errors.New("too large")
)

// BOM is the UTF-8 byte order mark.
const BOM = "\xef\xbb\xbf"
