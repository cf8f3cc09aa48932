//go:build !unix

package code

// cpuNow is 0 where getrusage is absent: the cpu-ns/op metric is then 0.
func cpuNow() int64 { return 0 }
