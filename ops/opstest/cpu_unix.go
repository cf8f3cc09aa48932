//go:build unix

package opstest

import "syscall"

// CPUTime is the process's CPU time so far (user+sys) in nanoseconds:
// benchmarks report it per op beside wall time, which a machine loaded by
// other work stretches.
func CPUTime() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
