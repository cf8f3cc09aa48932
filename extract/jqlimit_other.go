//go:build !unix

package extract

// limitAddressSpace has no kernel limit to set here: the child relies on
// the Go runtime's soft memory limit (debug.SetMemoryLimit) alone.
func limitAddressSpace(budget int64) error { return nil }

func isSignalKill(err error) bool { return false }
