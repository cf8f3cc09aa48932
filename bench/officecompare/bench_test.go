package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/ooxml"
)

// The benchmarks of issue 27 against their baselines, in the same run:
// a 10,000-row workbook written by excelize's StreamWriter (ours against
// excelize's OpenReader + GetRows) and a 200-page DOCX written by pandoc
// from Markdown (ours against pandoc -t plain, a process per run).
//
//	go test -run XXX -bench . -benchtime 5x -benchmem

func xlsx10k(b *testing.B) string {
	path := filepath.Join(b.TempDir(), "10k.xlsx")
	f := excelize.NewFile()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		b.Fatal(err)
	}
	style, _ := f.NewStyle(&excelize.Style{NumFmt: 14})
	for r := 1; r <= 10000; r++ {
		cell, _ := excelize.CoordinatesToCellName(1, r)
		row := []any{fmt.Sprintf("label %d", r%100), fmt.Sprintf("item %d", r), float64(r) + 0.25,
			excelize.Cell{StyleID: style, Value: 40000 + r%3000}, excelize.Cell{Formula: fmt.Sprintf("C%d*2", r), Value: 2*float64(r) + 0.5}}
		if err := sw.SetRow(cell, row); err != nil {
			b.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.SaveAs(path); err != nil {
		b.Fatal(err)
	}
	return path
}

func docx200(b *testing.B) string {
	dir := b.TempDir()
	var md strings.Builder
	para := strings.TrimSpace(strings.Repeat("the quick brown fox jumps over the lazy dog again ", 6))
	for p := 1; p <= 200; p++ {
		fmt.Fprintf(&md, "# Section %d\n\n", p)
		for i := 0; i < 8; i++ {
			md.WriteString(para + "\n\n")
		}
		md.WriteString("- first point\n- second point\n\n| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |\n| 4 | 5 | 6 |\n\n")
	}
	src, out := filepath.Join(dir, "200.md"), filepath.Join(dir, "200.docx")
	if err := os.WriteFile(src, []byte(md.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := exec.Command("pandoc", "-o", out, src).Run(); err != nil {
		b.Skipf("pandoc: %v", err)
	}
	return out
}

func ours(b *testing.B, x format.Extractor, path string) {
	doc, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := x.Extract(context.Background(), bytes.NewReader(doc), int64(len(doc)), format.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkXLSX10kRows(b *testing.B) {
	path := xlsx10k(b)
	b.Run("ours", func(b *testing.B) { ours(b, ooxml.XLSX(), path) })
	b.Run("excelize", func(b *testing.B) {
		doc, _ := os.ReadFile(path)
		b.ReportAllocs()
		for b.Loop() {
			f, err := excelize.OpenReader(bytes.NewReader(doc))
			if err != nil {
				b.Fatal(err)
			}
			for _, sh := range f.GetSheetList() {
				if _, err := f.GetRows(sh); err != nil {
					b.Fatal(err)
				}
			}
			f.Close()
		}
	})
}

func BenchmarkDOCX200Pages(b *testing.B) {
	path := docx200(b)
	b.Run("ours", func(b *testing.B) { ours(b, ooxml.DOCX(), path) })
	b.Run("pandoc", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("pandoc", "-t", "plain", path).Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
