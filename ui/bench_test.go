package ui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/retrieve-dev/retrieve/store"
)

// BenchmarkLedgerPage serves ledger pages over a ledger of 100,000 entries:
// the first page, a filtered one and the tenth page, and reports the 95th
// percentile of each (target: p95 ≤ 100 ms, docs/ui.md).
func BenchmarkLedgerPage(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	const n = 100_000
	res, _ := json.Marshal(map[string]any{"retrieved": map[string]any{"target": "x"}})
	start := time.Now().Add(-n * time.Second)
	for i := 0; i < n; i++ {
		id, _ := uuid.NewV7()
		st := store.StatusOK
		code := ""
		if i%20 == 0 {
			st, code = store.StatusError, "PATH_NOT_FOUND"
		}
		ent := &store.Entry{ID: id.String(), Time: start.Add(time.Duration(i) * time.Second), Op: "get",
			Target: fmt.Sprintf("docs/file-%d.md", i%500), Source: "file", Reference: fmt.Sprintf("docs/file-%d.md:1-20", i%500),
			Hash: "sha256:00", Status: st, Code: code, Duration: time.Millisecond, Request: json.RawMessage(`{}`), Result: res}
		if err := e.Deps.Store.Append(ctx, ent); err != nil {
			b.Fatal(err)
		}
	}
	// The tenth page: follow the cursor nine times.
	tenth := "/ui/ledger"
	for i := 0; i < 9; i++ {
		var out struct {
			NextCursor string `json:"next_cursor"`
		}
		op, _ := e.Table.Lookup("log")
		raw, _ := json.Marshal(map[string]any{"limit": 50, "cursor": cursorOf(tenth)})
		oc := e.Table.Call(ctx, op, raw, "bench")
		bb, _ := json.Marshal(oc.Value)
		_ = json.Unmarshal(bb, &out)
		if out.NextCursor == "" {
			break
		}
		tenth = "/ui/ledger?cursor=" + out.NextCursor
	}
	for _, c := range []struct{ name, path string }{
		{"First", "/ui/ledger"},
		{"Filtered", "/ui/ledger?status=error&source=file"},
		{"Target", "/ui/ledger?target=docs%2Ffile-7.md"},
		{"Tenth", tenth},
	} {
		b.Run(c.name, func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				t0 := time.Now()
				resp, err := http.Get(e.srv.URL + c.path)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("%s: status %d", c.path, resp.StatusCode)
				}
				times = append(times, time.Since(t0))
			}
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			b.ReportMetric(float64(times[len(times)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}

func cursorOf(path string) string {
	const p = "/ui/ledger?cursor="
	if len(path) > len(p) && path[:len(p)] == p {
		return path[len(p):]
	}
	return ""
}
