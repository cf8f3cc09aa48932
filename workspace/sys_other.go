//go:build !linux

package workspace

import "os"

// kernelPath is not available here: finalPath resolves the name again and
// compares the files.
func kernelPath(*os.File) (string, bool) { return "", false }

// beneath is nil here: there is no openat2.
func beneath(*os.Root) *os.File { return nil }

// openBeneath is never possible here: files are opened the general way.
func openBeneath(*os.File, string, string, int) (*os.File, bool) { return nil, false }
