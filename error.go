package retrieve

import (
	"errors"
	"fmt"
)

// Code is a machine-readable error class. Values are SCREAMING constants so
// agents can branch on them; the list below is the only list in the project.
type Code string

// The error codes. docs/CONTRACT.md documents each one and its CLI exit code.
const (
	CodeInputValidation   Code = "INPUT_VALIDATION_FAILED"
	CodePathNotFound      Code = "PATH_NOT_FOUND"
	CodeNotAFile          Code = "NOT_A_FILE"
	CodePermissionDenied  Code = "PERMISSION_DENIED"
	CodeOutsideRoot       Code = "OUTSIDE_ROOT"
	CodeSensitivePath     Code = "SENSITIVE_PATH"
	CodeRangeNotFound     Code = "RANGE_NOT_FOUND"
	CodeSectionNotFound   Code = "SECTION_NOT_FOUND"
	CodeSelectFailed      Code = "SELECT_FAILED"
	CodeParseFailed       Code = "PARSE_FAILED"
	CodeBlockedAddress    Code = "BLOCKED_ADDRESS"
	CodeRobotsDisallowed  Code = "ROBOTS_DISALLOWED"
	CodeRateLimited       Code = "RATE_LIMITED"
	CodeTimeout           Code = "TIMEOUT"
	CodeUpstreamStatus    Code = "UPSTREAM_STATUS"
	CodeTooLarge          Code = "TOO_LARGE"
	CodeUnsupportedFormat Code = "UNSUPPORTED_FORMAT"
	CodeUnknownSource     Code = "UNKNOWN_SOURCE"
	CodeQueryRejected     Code = "QUERY_REJECTED"
	CodeInvalidOperation  Code = "INVALID_OPERATION"
	CodeOntologyUnavail   Code = "ONTOLOGY_UNAVAILABLE"
	CodeSearchError       Code = "SEARCH_ERROR"
	CodeVersionNotFound   Code = "VERSION_NOT_FOUND"
	CodeNotFound          Code = "NOT_FOUND"
	CodeChanged           Code = "CHANGED"
	CodeQuoteNotFound     Code = "QUOTE_NOT_FOUND"
	CodeEvidenceNotFound  Code = "EVIDENCE_NOT_FOUND"
	CodeStoreUnavailable  Code = "STORE_UNAVAILABLE"
	CodeCanceled          Code = "CANCELED"
	CodeInternal          Code = "INTERNAL"
	CodeInvalidMemoryType Code = "INVALID_MEMORY_TYPE"
	CodeInvalidPath       Code = "INVALID_PATH"
	CodeWriteFailed       Code = "WRITE_FAILED"
)

// Codes lists every code, in documentation order.
var Codes = []Code{
	CodeInputValidation, CodePathNotFound, CodeNotAFile, CodePermissionDenied,
	CodeOutsideRoot, CodeSensitivePath, CodeRangeNotFound, CodeSectionNotFound,
	CodeSelectFailed, CodeParseFailed, CodeBlockedAddress, CodeRobotsDisallowed,
	CodeRateLimited, CodeTimeout, CodeUpstreamStatus, CodeTooLarge,
	CodeUnsupportedFormat, CodeUnknownSource, CodeQueryRejected, CodeInvalidOperation,
	CodeOntologyUnavail, CodeSearchError, CodeVersionNotFound, CodeNotFound,
	CodeChanged, CodeQuoteNotFound, CodeEvidenceNotFound, CodeStoreUnavailable,
	CodeCanceled, CodeInternal,
	CodeInvalidMemoryType, CodeInvalidPath, CodeWriteFailed,
}

// Error is the one error type of the project. Message is safe to show to a
// user or an agent; Hint says how to recover; Alternatives name nearby
// targets that do exist. Err keeps the low-level cause for logs and
// errors.Is, and is never shown in a result.
type Error struct {
	Code         Code
	Message      string
	Hint         string
	Alternatives []string
	Op           string
	Err          error
}

// Error implements the error interface.
func (e *Error) Error() string {
	s := string(e.Code) + ": " + e.Message
	if e.Op != "" {
		s = e.Op + ": " + s
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithHint sets the hint and returns e, for chaining.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// WithErr sets the underlying cause and returns e, for chaining.
func (e *Error) WithErr(err error) *Error {
	e.Err = err
	return e
}

// ErrorCode returns the code of the first *Error in err's chain, CodeCanceled
// or CodeTimeout for context errors, and CodeInternal otherwise. It returns ""
// for a nil error.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return AsError(err).Code
}

// AsError converts any error to an *Error. Errors that carry no code become
// INTERNAL with a generic message, so that internal detail never reaches a
// user; the cause stays in Err.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if coded, ok := translate(err); ok {
		return coded
	}
	return &Error{Code: CodeInternal, Message: "internal error", Hint: "this is a bug in retrieve; please report it with the command that caused it", Err: err}
}

// ErrorInfo is the error object of a failure envelope.
type ErrorInfo struct {
	Code         Code     `json:"code" yaml:"code"`
	Message      string   `json:"message" yaml:"message"`
	Hint         string   `json:"hint" yaml:"hint"`
	Alternatives []string `json:"alternatives" yaml:"alternatives"`
}

// Info returns the envelope form of e.
func (e *Error) Info() *ErrorInfo {
	alts := e.Alternatives
	if alts == nil {
		alts = []string{}
	}
	return &ErrorInfo{Code: e.Code, Message: e.Message, Hint: e.Hint, Alternatives: alts}
}
