package engine

import (
	"testing"
	"time"
)

// A snapshot's write has the ledger entry's deadline plus the time its
// bytes take at the slowest expected store speed: a 1 GiB snapshot gets
// minutes, not the 30 s that cut one PostgreSQL took 33 s to store.
func TestSnapshotTimeoutGrowsWithSize(t *testing.T) {
	if got := snapshotTimeout(0); got != recordTimeout {
		t.Errorf("empty snapshot: %v, want %v", got, recordTimeout)
	}
	if got := snapshotTimeout(-1); got != recordTimeout {
		t.Errorf("unknown size: %v, want %v", got, recordTimeout)
	}
	if got, want := snapshotTimeout(1<<30), recordTimeout+256*time.Second; got != want {
		t.Errorf("1 GiB: %v, want %v (4 MiB/s)", got, want)
	}
	for size := int64(1 << 20); size < 1<<40; size *= 4 {
		if snapshotTimeout(size*4) <= snapshotTimeout(size) {
			t.Fatalf("the deadline does not grow from %d to %d bytes", size, size*4)
		}
	}
}
