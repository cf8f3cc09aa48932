package code

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
)

// Benchmarks of outlines on 10k-line files of public source code that no
// one on the team wrote, assembled from whole files found on this machine
// (bench/peers.sh times universal-ctags on the same files):
//   - go: net/http/h2_bundle.go of the Go toolchain (12k lines);
//   - python: the standard library's _pydecimal.py and typing.py (9.8k);
//   - typescript: zod's v3/types.ts and v4/core/schemas.ts (10.4k), from
//     the node_modules that `npm ci` puts in bench/ or test/mcpclient/.
//
// A benchmark whose files are absent is skipped with the reason.

// benchInput is one language's benchmark file, whole source files joined.
type benchInput struct {
	lang  string
	files func() []string
}

var benchInputs = []benchInput{
	{"go", func() []string {
		return []string{filepath.Join(runtime.GOROOT(), "src", "net", "http", "h2_bundle.go")}
	}},
	{"python", func() []string {
		dirs, _ := filepath.Glob("/usr/lib/python3.*")
		home, _ := os.UserHomeDir()
		more, _ := filepath.Glob(filepath.Join(home, ".pyenv", "versions", "*", "lib", "python3.*"))
		dirs = append(dirs, more...)
		sort.Strings(dirs)
		for _, d := range dirs {
			a, b := filepath.Join(d, "_pydecimal.py"), filepath.Join(d, "typing.py")
			if exists(a) && exists(b) {
				return []string{a, b}
			}
		}
		return nil
	}},
	{"typescript", func() []string {
		for _, nm := range []string{"../../bench/node_modules", "../../test/mcpclient/node_modules"} {
			src := filepath.Join(nm, "zod", "src")
			a, b := filepath.Join(src, "v3", "types.ts"), filepath.Join(src, "v4", "core", "schemas.ts")
			if exists(a) && exists(b) {
				return []string{a, b}
			}
		}
		return nil
	}},
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// loadBenchInput returns the joined source of a language's benchmark, or
// skips the benchmark.
func loadBenchInput(tb testing.TB, lang string) []byte {
	tb.Helper()
	for _, in := range benchInputs {
		if in.lang != lang {
			continue
		}
		files := in.files()
		if len(files) == 0 {
			tb.Skipf("no %s source to outline on this machine (see bench_test.go)", lang)
		}
		var buf bytes.Buffer
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			buf.Write(b)
			if !bytes.HasSuffix(b, []byte("\n")) {
				buf.WriteByte('\n')
			}
		}
		return buf.Bytes()
	}
	tb.Fatalf("no benchmark input for %s", lang)
	return nil
}

// BenchmarkParse outlines each language's 10k-line file, parsers warm (a
// long-running server's case).
func BenchmarkParse(b *testing.B) {
	for _, in := range benchInputs {
		b.Run(in.lang, func(b *testing.B) {
			src := loadBenchInput(b, in.lang)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			cpu := cpuNow()
			for b.Loop() {
				o, err := Parse(in.lang, src)
				if err != nil {
					b.Fatal(err)
				}
				if len(o.Symbols) == 0 || o.SyntaxErrors {
					b.Fatalf("%s: %d symbols, syntax errors %v", in.lang, len(o.Symbols), o.SyntaxErrors)
				}
			}
			b.ReportMetric(float64(cpuNow()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
