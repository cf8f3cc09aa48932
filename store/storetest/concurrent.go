package storetest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
)

// runConcurrent holds every store to what many replicas need: the same
// snapshot stored by many writers at once is kept once, whole, and every
// writer succeeds.
func runConcurrent(t *testing.T, open Opener) {
	t.Run("Snapshots/Concurrent", func(t *testing.T) {
		s := open(t)
		ctx := context.Background()
		same := bytes.Repeat([]byte("stored by every writer at once\n"), 200000) // ~6 MiB, two chunks
		var wg sync.WaitGroup
		errs := make(chan error, 32)
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				own := []byte(fmt.Sprintf("writer %d's own bytes", i%4))
				for _, b := range [][]byte{same, own} {
					if err := s.PutSnapshot(ctx, hashOf(b), bytes.NewReader(b)); err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		rc, err := s.OpenSnapshot(ctx, hashOf(same))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, same) {
			t.Fatalf("the shared snapshot reads back as %d bytes (%v), want %d", len(got), err, len(same))
		}
		for i := range 4 {
			if ok, err := s.HasSnapshot(ctx, hashOf([]byte(fmt.Sprintf("writer %d's own bytes", i)))); err != nil || !ok {
				t.Fatalf("writer %d's snapshot is missing (%v)", i, err)
			}
		}
	})
}
