// Package sentinel declares the sentinel errors of the leaf packages extract
// and policy in a package that imports only errors. The contract package
// translates them to codes (translate.go) through this package, so that it
// depends neither on the leaves nor on their parsers (jq, YAML, TOML,
// goldmark, gitignore). extract and policy re-export each one under its
// usual name (extract.ErrBadRange, policy.ErrSensitive…): callers wrap and
// test them there, and never import this package.
package sentinel

import "errors"

// The errors of extract.
var (
	// BadRange is extract.ErrBadRange.
	BadRange = errors.New("invalid range")
	// RangeNotFound is extract.ErrRangeNotFound.
	RangeNotFound = errors.New("range not found")
	// SectionNotFound is extract.ErrSectionNotFound.
	SectionNotFound = errors.New("section not found")
	// Select is extract.ErrSelect.
	Select = errors.New("select failed")
	// Parse is extract.ErrParse.
	Parse = errors.New("parse failed")
	// NotStructured is extract.ErrNotStructured.
	NotStructured = errors.New("not structured data")
	// TooLarge is extract.ErrTooLarge.
	TooLarge = errors.New("too large")
	// JQMemory is extract.ErrJQMemory.
	JQMemory = errors.New("jq memory budget exceeded")
	// JQBusy is extract.ErrJQBusy.
	JQBusy = errors.New("no jq sandbox slot free")
	// Timeout is extract.ErrTimeout.
	Timeout = errors.New("timed out")
)

// The errors of policy.
var (
	// OutsideRoot is policy.ErrOutsideRoot.
	OutsideRoot = errors.New("path is outside the workspace root")
	// Sensitive is policy.ErrSensitive.
	Sensitive = errors.New("path is on the deny list")
	// HardLink is policy.ErrHardLink.
	HardLink = errors.New("file has several hard links")
	// BadName is policy.ErrBadName.
	BadName = errors.New("path is not a valid file name")
	// NotRegular is policy.ErrNotRegular.
	NotRegular = errors.New("path is not a regular file or a directory")
	// FileTooLarge is policy.ErrTooLarge.
	FileTooLarge = errors.New("file is too large")
)
