//go:build !unix

package opstest

// CPUTime is 0 where the process's CPU time is not read.
func CPUTime() int64 { return 0 }
