//go:build !unix

package codecorpus

// CPUTime is 0 where getrusage is absent: a cpu-ns/op metric is then 0.
func CPUTime() int64 { return 0 }
