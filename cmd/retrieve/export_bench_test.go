package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/ledger"
)

// BenchmarkBundle1000 exports and verifies a bundle of 1,000 citations over
// 100 files (issue 29: export and verify ≤ 2 s each, opening < 1 s):
// export is `retrieve export --since`, verify is `retrieve verify --bundle`
// in an empty directory (every snapshot hashed, every entry's data
// extracted again and hashed, every proof checked), open is
// ledger.OpenBundle alone.
func BenchmarkBundle1000(b *testing.B) {
	ws := testws.New(b)
	var batch strings.Builder
	for f := 0; f < 100; f++ {
		var body strings.Builder
		for l := 1; l <= 200; l++ {
			fmt.Fprintf(&body, "file %d line %d: some text of the document, enough to be a line\n", f, l)
		}
		ws.Write(fmt.Sprintf("docs/f%03d.txt", f), body.String())
		for c := 0; c < 10; c++ {
			fmt.Fprintf(&batch, "docs/f%03d.txt:%d-%d\n", f, c*20+1, c*20+10)
		}
	}
	ws.Write("batch.txt", batch.String())
	if _, errOut, code := runCLI(b, "--root", ws.Root, "get", "--batch", filepath.Join(ws.Root, "batch.txt"), "--json"); code != ExitOK {
		b.Fatalf("get --batch: exit %d: %s", code, errOut)
	}
	bundle := filepath.Join(b.TempDir(), "e.zip")
	export := func() {
		if _, errOut, code := runCLI(b, "--root", ws.Root, "export", "--since", "1h", "-o", bundle); code != ExitOK {
			b.Fatalf("export: exit %d: %s", code, errOut)
		}
	}
	export()
	fi, _ := os.Stat(bundle)
	b.Run("export", func(b *testing.B) {
		for b.Loop() {
			export()
		}
		b.ReportMetric(float64(fi.Size()), "bundle-bytes")
	})
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			f, _ := os.Open(bundle)
			st, _ := f.Stat() // each export writes the file anew
			bun, err := ledger.OpenBundle(f, st.Size(), ledger.DefaultLimits())
			f.Close()
			if err != nil || len(bun.Entries) != 1000 {
				b.Fatalf("open: %v", err)
			}
		}
	})
	fresh := b.TempDir()
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			out, errOut, code := runCLI(b, "--root", fresh, "verify", "--bundle", bundle)
			if code != ExitOK || !strings.Contains(out, "1000 verified, 0 unproven, 0 failed") {
				b.Fatalf("verify: exit %d: %s%s", code, out[max(0, len(out)-300):], errOut)
			}
		}
	})
}
