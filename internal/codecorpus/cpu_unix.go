//go:build unix

package codecorpus

import "syscall"

// CPUTime is the process's user+system CPU time in nanoseconds, for
// benchmarks that report CPU beside wall time on a loaded machine.
func CPUTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
