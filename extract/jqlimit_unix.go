//go:build unix

package extract

import (
	"errors"
	"os/exec"
	"syscall"
)

// limitAddressSpace caps this process's address space at what it holds
// now plus budget (RLIMIT_AS): an allocation past it fails, and the Go
// runtime exits with "out of memory".
func limitAddressSpace(budget int64) error {
	cur := currentAddressSpace()
	if cur == 0 {
		// No /proc (macOS, BSD): the Go runtime reserves about 1 GiB of
		// address space up front on 64-bit systems.
		cur = 1 << 30
	}
	lim := uint64(cur + budget)
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
}

// isSignalKill reports whether the child died of a signal (the kernel's
// OOM killer, or an abort in the runtime).
func isSignalKill(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}
