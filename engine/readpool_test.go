package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/retrieve-dev/retrieve"
)

// Concurrent small reads of different files, whose read buffers go back
// to the pool: every result holds its own file's lines, and still does
// once the other reads have reused the buffers (the data is not a view of
// a buffer that was given back).
func TestPooledReadBuffersKeepEachResult(t *testing.T) {
	root := t.TempDir()
	want := map[string]string{}
	for i := range 16 {
		var b strings.Builder
		for l := 1; l <= 40; l++ {
			fmt.Fprintf(&b, "line %d of file %d\n", l, i)
		}
		name := fmt.Sprintf("f%d.txt", i)
		if err := os.WriteFile(filepath.Join(root, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(b.String(), "\n")
		want[name] = strings.Join(lines[:20], "")
	}
	e := newEngine(t, root)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var kept []*retrieve.Result
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				name := fmt.Sprintf("f%d.txt", (g+i)%16)
				res, err := e.Retrieve(context.Background(), retrieve.Request{Target: name, Constraints: retrieve.Constraints{Lines: "1-20"}})
				if err != nil {
					t.Error(err)
					return
				}
				if res.Retrieved.Data != want[name] {
					t.Errorf("%s: data %.80q, want %.80q", name, res.Retrieved.Data, want[name])
					return
				}
				mu.Lock()
				kept = append(kept, res)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, res := range kept {
		if res.Retrieved.Data != want[res.Retrieved.Target] {
			t.Fatalf("%s: data changed after the other reads: %.80q", res.Retrieved.Target, res.Retrieved.Data)
		}
	}
}
