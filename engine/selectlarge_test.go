package engine_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/memprobe"
)

// writeRows writes a CSV and a JSON array of about size bytes each, with
// the same rows.
func writeRows(t testing.TB, dir string, size int) {
	t.Helper()
	for _, name := range []string{"big.csv", "big.json"} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		n := 0
		if name == "big.csv" {
			n, _ = w.WriteString("id,name,desc\n")
		} else {
			n, _ = w.WriteString("[")
		}
		for i := 0; n < size; i++ {
			var m int
			if name == "big.csv" {
				m, _ = fmt.Fprintf(w, "%d,name%d,some description text for row %d\n", i, i, i)
			} else {
				sep := ","
				if i == 0 {
					sep = ""
				}
				m, _ = fmt.Fprintf(w, `%s{"id":%d,"name":"name%d","desc":"some description text for row %d"}`, sep, i, i, i)
			}
			n += m
		}
		if name == "big.json" {
			w.WriteString("]")
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
}

// TestSelectLargeStructured: a plain path (.[1000]) on large CSV and JSON
// is streamed — the row, in bounded memory, the whole source hashed — and
// an expression that would parse everything is refused up front with
// TOO_LARGE naming the limit and select_max_input (issue 28).
func TestSelectLargeStructured(t *testing.T) {
	dir := t.TempDir()
	writeRows(t, dir, 20<<20)
	e := newEngine(t, dir)
	for _, name := range []string{"big.csv", "big.json"} {
		// A first read hashes the file (its cost is the hasher's, whatever
		// is selected); the selection is measured after it.
		if _, err := e.Retrieve(context.Background(), retrieve.Request{Target: name, Constraints: retrieve.Constraints{Lines: "1"}}); err != nil {
			t.Fatal(err)
		}
		var res *retrieve.Result
		var err error
		peak := memprobe.Peak(func() {
			res, err = e.Retrieve(context.Background(), retrieve.Request{Target: name, Constraints: retrieve.Constraints{Select: ".[1000]"}})
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		row, _ := res.Retrieved.Data.(map[string]any)
		if fmt.Sprint(row["name"]) != "name1000" || fmt.Sprint(row["id"]) != "1000" {
			t.Errorf("%s: data %v, want row 1000", name, res.Retrieved.Data)
		}
		if *res.Extraction.OriginalSize < 20<<20 || res.Citation.Reference != name+"#select=.%5B1000%5D" {
			t.Errorf("%s: original_size %d reference %s: the whole source is hashed and the selection cited", name, *res.Extraction.OriginalSize, res.Citation.Reference)
		}
		// The probe sees the whole process's heap (a background fold of the
		// first read may still run: 10 MiB was seen under load), so the
		// bound is a fraction of the 20 MiB source; parsing it whole takes
		// hundreds of MiB (BenchmarkSelectLargeCSV measures the stream).
		if peak > 16<<20 {
			t.Errorf("%s: a streamed selection took %d KiB of heap, want well under the 20 MiB source", name, peak>>10)
		}
		again, err := e.Retrieve(context.Background(), retrieve.Request{Target: res.Citation.Reference})
		if err != nil || *again.Citation.Hash != *res.Citation.Hash {
			t.Errorf("%s: the reference does not re-retrieve the hash: %v", name, err)
		}
		_, err = e.Retrieve(context.Background(), retrieve.Request{Target: name, Constraints: retrieve.Constraints{Select: "map(.id) | length"}})
		if retrieve.ErrorCode(err) != retrieve.CodeTooLarge {
			t.Fatalf("%s: a whole-document expression: %v, want TOO_LARGE", name, err)
		}
		if re := retrieve.AsError(err); !strings.Contains(re.Message, "16777216") || !strings.Contains(re.Hint, "select_max_input") {
			t.Errorf("%s: the error does not name the limit and how to raise it: %s / %s", name, re.Message, re.Hint)
		}
	}
}

// BenchmarkSelectLargeCSV selects row 1000 of a 50 MB CSV and JSON array
// (a plain path, streamed) and reports the peak heap of a call, once the
// file's hash is known (the first read's cost is the hasher's).
func BenchmarkSelectLargeCSV(b *testing.B) {
	dir := b.TempDir()
	writeRows(b, dir, 50<<20)
	e := newEngine(b, dir)
	for _, name := range []string{"big.csv", "big.json"} {
		b.Run(name, func(b *testing.B) {
			if _, err := e.Retrieve(context.Background(), retrieve.Request{Target: name, Constraints: retrieve.Constraints{Lines: "1"}}); err != nil {
				b.Fatal(err) // the first read hashes the file
			}
			b.ReportAllocs()
			var peak uint64
			for b.Loop() {
				p := memprobe.Peak(func() {
					if _, err := e.Retrieve(context.Background(), retrieve.Request{Target: name, Constraints: retrieve.Constraints{Select: ".[1000]"}}); err != nil {
						b.Fatal(err)
					}
				})
				peak = max(peak, p)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
		})
	}
}
