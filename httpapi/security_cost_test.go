package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/retrieve-dev/retrieve/check"
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
