//go:build !unix

package memory

import "os"

// lockFile is a no-op where flock does not exist: the process-wide mutex
// still serializes writers of one process.
func lockFile(f *os.File) error { return nil }

func unlockFile(f *os.File) error { return nil }
