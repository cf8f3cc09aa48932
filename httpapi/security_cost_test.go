package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/retrieve-dev/retrieve/check"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/httpapi"
	"github.com/retrieve-dev/retrieve/internal/memprobe"
)

// checkAtLimit is a document at the limits of check: MaxCitations
// citations, each of a different file and with a quotation, and markup up
// to MaxMarkup.
func checkAtLimit(t *testing.T, write func(string, string) string) string {
	t.Helper()
	var b strings.Builder
	for i := range check.MaxCitations {
		name := fmt.Sprintf("cost/f%04d.txt", i)
		write(name, fmt.Sprintf("alpha %d\nbeta\n", i))
		fmt.Fprintf(&b, "It says \"alpha %d\" [%d](%s:1-1).\n", i, i, name)
	}
	doc := b.String()
	pad := (check.MaxMarkup - check.MarkupCount([]byte(doc))) / 2
	return doc + strings.Repeat("_a_ ", pad)
}

// peakMiB is a measured peak heap in MiB, for the log.
func peakMiB(n uint64) float64 { return float64(n) / (1 << 20) }

// TestSecurityCheckBoundedCost sends /v1/check a document at the limits
// (5,000 citations of 5,000 files, 64 Ki markup characters), a markup bomb
// just under the body cap, too many citations, and three documents at the
// limit at once: the heap of the whole process (client and server) stays
// under the bounds of docs/SECURITY.md. Before the limits, a 6.9 MB
// document took a server from 77 MB to 672 MB.
func TestSecurityCheckBoundedCost(t *testing.T) {
	env, c := start(t, httpapi.Options{})
	doc := checkAtLimit(t, env.WS.Write)
	body, _ := json.Marshal(map[string]any{"text": doc})

	t.Run("OK", func(t *testing.T) {
		var status int
		var m map[string]any
		peak := memprobe.Peak(func() { status, m = c.call("POST", "/v1/check", string(body)) })
		t.Logf("check at the limit: peak heap %.1f MiB", peakMiB(peak))
		if status != 200 {
			t.Fatalf("status %d: %v", status, m)
		}
		if got := m["ok"]; got != float64(check.MaxCitations) {
			t.Errorf("ok = %v, want %d (failed %v)", got, check.MaxCitations, m["failed"])
		}
		if peak > checkBound {
			t.Errorf("peak heap %.1f MiB, want at most %.0f MiB", peakMiB(peak), peakMiB(checkBound))
		}
	})
	t.Run("ErrMarkup", func(t *testing.T) {
		bomb, _ := json.Marshal(map[string]any{"text": strings.Repeat("_a_ ", (8<<20-100)/4)})
		var status int
		var raw []byte
		peak := memprobe.Peak(func() { status, raw = c.do("POST", "/v1/check", string(bomb)) })
		t.Logf("markup bomb: peak heap %.1f MiB", peakMiB(peak))
		if status != 413 || !strings.Contains(string(raw), "TOO_LARGE") {
			t.Errorf("status %d %s, want 413 TOO_LARGE", status, raw)
		}
		if peak > checkBound {
			t.Errorf("peak heap %.1f MiB, want at most %.0f MiB", peakMiB(peak), peakMiB(checkBound))
		}
	})
	t.Run("ErrCitations", func(t *testing.T) {
		many, _ := json.Marshal(map[string]any{"text": strings.Repeat("[a](notes.txt:1-1) ", check.MaxCitations+1)})
		status, raw := c.do("POST", "/v1/check", string(many))
		if status != 413 || !strings.Contains(string(raw), "TOO_LARGE") {
			t.Errorf("status %d %s, want 413 TOO_LARGE", status, raw)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		var wg sync.WaitGroup
		statuses := make([]int, 3)
		peak := memprobe.Peak(func() {
			for i := range statuses {
				wg.Add(1)
				go func() {
					defer wg.Done()
					statuses[i], _ = c.do("POST", "/v1/check", string(body))
				}()
			}
			wg.Wait()
		})
		t.Logf("three checks at the limit at once: peak heap %.1f MiB", peakMiB(peak))
		for i, s := range statuses {
			if s != 200 {
				t.Errorf("request %d: status %d, want 200", i, s)
			}
		}
		if peak > check.MaxRunning*checkBound {
			t.Errorf("peak heap %.1f MiB, want at most %.0f MiB (%d checks run at once)", peakMiB(peak), peakMiB(check.MaxRunning*checkBound), check.MaxRunning)
		}
	})
}

// checkBound is the documented bound on one check's heap (docs/SECURITY.md).
const checkBound = 96 << 20

// handlerBound is the documented bound on the heap of one request at the
// limits to the write, ingest, many and outline handlers (docs/SECURITY.md).
const handlerBound = 128 << 20

// manyBound is the bound of retrieve_many with 50 targets of 1 MiB and a
// 1 MiB budget (docs/SECURITY.md).
const manyBound = 64 << 20

// TestSecurityHandlersBoundedCost sends each handler that takes a large
// input or fans out a request at its limits — graph_ingest and wiki_write
// and memory_write with a body at the 8 MiB cap, retrieve_many with 50
// targets of 1 MiB each, outline of a directory of 2,000 files — and
// holds the peak heap of the process to handlerBound.
func TestSecurityHandlersBoundedCost(t *testing.T) {
	env, c := start(t, httpapi.Options{})
	big := strings.Repeat("Alpha beta gamma delta epsilon zeta eta theta. ", (1<<20)/48)
	var targets []string
	for i := range 50 {
		name := fmt.Sprintf("many/f%02d.txt", i)
		env.WS.Write(name, big)
		targets = append(targets, name)
	}
	for i := range 2000 {
		env.WS.Write(fmt.Sprintf("tree/d%02d/f%04d.go", i%40, i), fmt.Sprintf("package d\n\nfunc F%d() {}\n", i))
	}
	body := func(v any) string {
		b, _ := json.Marshal(v)
		if len(b) > httpapi.DefaultMaxBody {
			t.Fatalf("a request of %d bytes is over the body cap", len(b))
		}
		return string(b)
	}
	// An extraction of as many entities and relations as fit the body.
	var ents, rels []any
	for i := 0; i < graph.MaxExtractionItems; i++ {
		ents = append(ents, map[string]any{"name": fmt.Sprintf("Entity %d", i), "type": "thing", "supporting_text": "Alpha beta"})
		rels = append(rels, map[string]any{"source": fmt.Sprintf("Entity %d", i), "target": fmt.Sprintf("Entity %d", (i+1)%graph.MaxExtractionItems), "type": "next", "confidence": 0.9, "supporting_text": "gamma delta"})
	}
	ingest := body(map[string]any{"doc_id": "big", "title": "Big", "content": big, "extraction": map[string]any{"entities": ents, "relations": rels}})
	content := strings.Repeat("Line of a page that is long enough. ", (4<<20)/37)
	t.Run("graph_ingest/ErrTooMany", func(t *testing.T) {
		over := body(map[string]any{"doc_id": "over", "title": "Over", "content": "Alpha beta", "extraction": map[string]any{"entities": append(ents, map[string]any{"name": "One more", "type": "thing"}), "relations": []any{}}})
		if status, raw := c.do("POST", "/v1/graph_ingest", over); status != 413 || !strings.Contains(string(raw), "TOO_LARGE") {
			t.Errorf("status %d %.300s, want 413 TOO_LARGE", status, raw)
		}
	})
	cases := []struct {
		name, path, body string
		bound            uint64
	}{
		{"graph_ingest", "/v1/graph_ingest", ingest, handlerBound},
		{"wiki_write", "/v1/wiki_write", body(map[string]any{"category": "topic", "title": "Big page", "content": content}), handlerBound},
		{"memory_write", "/v1/memory_write", body(map[string]any{"memory_type": "semantic", "title": "Big note", "content": strings.Repeat("x", 7<<20)}), handlerBound},
		// 50 targets of 1 MiB: the retrievals waiting for their shares
		// hold about the budget between them (docs/SECURITY.md).
		{"retrieve_many", "/v1/retrieve_many", body(map[string]any{"targets": targets, "budget": 1 << 20}), manyBound},
		{"outline", "/v1/outline", body(map[string]any{"target": "tree", "limit": 500, "budget": 1 << 20}), handlerBound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var status int
			var raw []byte
			peak := memprobe.Peak(func() { status, raw = c.do("POST", tc.path, tc.body) })
			t.Logf("%s with a %.1f MiB request: status %d, peak heap %.1f MiB", tc.name, float64(len(tc.body))/(1<<20), status, peakMiB(peak))
			if status >= 500 {
				t.Errorf("status %d: %.300s", status, raw)
			}
			if peak > tc.bound {
				t.Errorf("peak heap %.1f MiB, want at most %.0f MiB", peakMiB(peak), peakMiB(tc.bound))
			}
		})
	}
}
