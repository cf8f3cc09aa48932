package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/check"
	"github.com/retrieve-dev/retrieve/internal/memprobe"
	"github.com/retrieve-dev/retrieve/internal/testws"
)

// checkCLIBound is the documented bound on the heap of `retrieve check` on
// a document at the limits (docs/SECURITY.md).
const checkCLIBound = 96 << 20

// TestSecurityCheckBoundedCostCLI runs `retrieve check` on a document at
// the limits (5,000 citations of 5,000 files, 64 Ki markup characters) and
// on a markup bomb: the heap stays under the bound, the bomb is TOO_LARGE
// before it is parsed. Before the limits, 200,000 citations took the CLI
// to 870 MB.
func TestSecurityCheckBoundedCostCLI(t *testing.T) {
	ws := testws.New(t)
	var b strings.Builder
	for i := range check.MaxCitations {
		name := fmt.Sprintf("cost/f%04d.txt", i)
		ws.Write(name, fmt.Sprintf("alpha %d\nbeta\n", i))
		fmt.Fprintf(&b, "It says \"alpha %d\" [%d](%s:1-1).\n", i, i, name)
	}
	doc := b.String()
	doc += strings.Repeat("_a_ ", (check.MaxMarkup-check.MarkupCount([]byte(doc)))/2)
	atLimit := ws.Write("answer.md", doc)
	bomb := ws.Write("bomb.md", strings.Repeat("_a_ ", 1<<20))

	t.Run("OK", func(t *testing.T) {
		var out, errOut string
		var code int
		peak := memprobe.Peak(func() { out, errOut, code = runCLI(t, "--root", ws.Root, "check", "--format", "json", atLimit) })
		t.Logf("check at the limit: peak heap %.1f MiB", float64(peak)/(1<<20))
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(out, fmt.Sprintf(`"ok": %d`, check.MaxCitations)) {
			t.Errorf("the report does not count %d ok citations: %.300s", check.MaxCitations, out)
		}
		if peak > checkCLIBound {
			t.Errorf("peak heap %.1f MiB, want at most %d MiB", float64(peak)/(1<<20), checkCLIBound>>20)
		}
	})
	t.Run("ErrMarkup", func(t *testing.T) {
		var errOut string
		var code int
		peak := memprobe.Peak(func() { _, errOut, code = runCLI(t, "--root", ws.Root, "check", bomb) })
		t.Logf("markup bomb of 4 MiB: peak heap %.1f MiB", float64(peak)/(1<<20))
		if code != exitCode("TOO_LARGE") || !strings.Contains(errOut, "TOO_LARGE") {
			t.Errorf("exit %d %s, want TOO_LARGE", code, errOut)
		}
		if peak > checkCLIBound {
			t.Errorf("peak heap %.1f MiB, want at most %d MiB", float64(peak)/(1<<20), checkCLIBound>>20)
		}
	})
}
