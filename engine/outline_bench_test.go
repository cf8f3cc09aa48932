package engine_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/extract/codeparser"
	"github.com/retrieve-dev/retrieve/internal/codecorpus"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// BenchmarkOutline is Engine.Outline of the 10k-line files of
// internal/codecorpus in a long-running process (serve): cold parses
// (an engine without a store), warm reads the outline the store cached.
// bench/outline.sh times universal-ctags on the same files; the targets
// are cold <= 2x and warm <= 0.2x its CPU.
func BenchmarkOutline(b *testing.B) {
	testws.NeedsCgo(b, "Python and TypeScript")
	ctx := context.Background()
	exts := map[string]string{"python": "py", "typescript": "ts", "go": "go"}
	for _, lang := range codecorpus.Languages {
		src, err := codecorpus.Load(lang)
		if err != nil {
			b.Skip(err)
		}
		ws := testws.New(b)
		name := "big." + exts[lang]
		ws.Write(name, string(src))
		fs, err := file.New(file.Options{Root: ws.Root})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { fs.Close() })
		st, err := sqlite.OpenStore(ctx, filepath.Join(ws.Root, ".retrieve", "retrieve.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		for _, mode := range []string{"cold", "warm"} {
			opts := engine.Options{Sources: []retrieve.Source{fs}, Code: codeparser.New(), SpoolDir: filepath.Join(ws.Root, ".retrieve", "tmp")}
			if mode == "warm" {
				opts.Store = st
			}
			e, err := engine.New(opts)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(lang+"/"+mode, func(b *testing.B) {
				if _, err := e.Outline(ctx, name, nil); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				cpu := codecorpus.CPUTime()
				for b.Loop() {
					o, err := e.Outline(ctx, name, nil)
					if err != nil || len(o.Symbols) == 0 {
						b.Fatalf("outline: %d symbols, %v", len(o.Symbols), err)
					}
				}
				b.ReportMetric(float64(codecorpus.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
