package main

import "github.com/retrieve-dev/retrieve"

// Exit codes, one per error class. docs/CONTRACT.md lists them.
const (
	ExitOK       = 0
	ExitInternal = 1
	ExitUsage    = 2 // bad input: the request itself is wrong
	ExitNotFound = 3 // the target, version, quote or evidence does not exist
	ExitRefused  = 4 // a safety rule refused the target
	ExitUpstream = 5 // the source or the store failed or was too slow
	ExitFormat   = 6 // the data's size or format does not allow the request
	ExitChanged  = 7 // verification found a change
)

var exitCodes = map[retrieve.Code]int{
	retrieve.CodeInputValidation:   ExitUsage,
	retrieve.CodeRangeNotFound:     ExitUsage,
	retrieve.CodeSectionNotFound:   ExitUsage,
	retrieve.CodeSelectFailed:      ExitUsage,
	retrieve.CodeUnknownSource:     ExitUsage,
	retrieve.CodeInvalidOperation:  ExitUsage,
	retrieve.CodePathNotFound:      ExitNotFound,
	retrieve.CodeNotAFile:          ExitNotFound,
	retrieve.CodeVersionNotFound:   ExitNotFound,
	retrieve.CodeNotFound:          ExitNotFound,
	retrieve.CodeQuoteNotFound:     ExitNotFound,
	retrieve.CodeEvidenceNotFound:  ExitNotFound,
	retrieve.CodeOutsideRoot:       ExitRefused,
	retrieve.CodeSensitivePath:     ExitRefused,
	retrieve.CodeBlockedAddress:    ExitRefused,
	retrieve.CodeRobotsDisallowed:  ExitRefused,
	retrieve.CodePermissionDenied:  ExitRefused,
	retrieve.CodeQueryRejected:     ExitRefused,
	retrieve.CodeTimeout:           ExitUpstream,
	retrieve.CodeRateLimited:       ExitUpstream,
	retrieve.CodeUpstreamStatus:    ExitUpstream,
	retrieve.CodeStoreUnavailable:  ExitUpstream,
	retrieve.CodeCanceled:          ExitUpstream,
	retrieve.CodeOntologyUnavail:   ExitUpstream,
	retrieve.CodeSearchError:       ExitUpstream,
	retrieve.CodeTooLarge:          ExitFormat,
	retrieve.CodeUnsupportedFormat: ExitFormat,
	retrieve.CodeParseFailed:       ExitFormat,
	retrieve.CodeChanged:           ExitChanged,
	retrieve.CodeInternal:          ExitInternal,
	retrieve.CodeInvalidMemoryType: ExitUsage,
	retrieve.CodeInvalidPath:       ExitUsage,
	retrieve.CodeWriteFailed:       ExitUpstream,
}

// exitCode returns the exit code for an error code.
func exitCode(c retrieve.Code) int {
	if c == "" {
		return ExitOK
	}
	if code, ok := exitCodes[c]; ok {
		return code
	}
	return ExitInternal
}

// exitError carries an exit code out of a command whose output is already written.
type exitError struct{ code int }

func (e *exitError) Error() string { return "exit" }
