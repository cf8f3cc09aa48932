// Package memprobe measures the peak heap of a call, for the tests that
// hold a request's memory to a documented bound (docs/SECURITY.md, "Bounded
// cost"). It samples the Go heap through runtime/metrics, which does not
// stop the world, every few hundred microseconds while the call runs.
package memprobe

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// heapObjects is the live and not yet swept heap: what a request's
// allocations push up until the collector runs.
const heapObjects = "/memory/classes/heap/objects:bytes"

// Peak runs fn and returns the highest heap it saw above the heap before
// fn (after a collection), in bytes. A sample is taken every 200 µs, so a
// spike shorter than that may be missed; the bounds tested are far above
// the sampling error.
func Peak(fn func()) uint64 {
	runtime.GC()
	base := read()
	stop := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var p uint64
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			if v := read(); v > p {
				p = v
			}
			select {
			case <-stop:
				if v := read(); v > p {
					p = v
				}
				peak <- p
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(stop)
	p := <-peak
	if p < base {
		return 0
	}
	return p - base
}

func read() uint64 {
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
