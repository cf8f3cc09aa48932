// Package doctest helps the office and e-book extractors' tests: it builds
// zip packages in memory and checks the invariants every format.Text must
// hold beyond the conformance suite's (Markdown, parts ending with a
// newline).
package doctest

import (
	"archive/zip"
	"bytes"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/formattest"
)

// File is one member of a zip built by Zip.
type File struct {
	Name, Body string
	// Store writes the member uncompressed (an OpenDocument or EPUB
	// mimetype must be).
	Store bool
}

// Zip builds a zip of files, in order.
func Zip(t testing.TB, files ...File) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		if f.Store {
			// Sizes in the local header, no data descriptor: how
			// OpenDocument and EPUB writers store their mimetype.
			w, err := zw.CreateRaw(&zip.FileHeader{Name: f.Name, Method: zip.Store, CRC32: crc32.ChecksumIEEE([]byte(f.Body)),
				CompressedSize64: uint64(len(f.Body)), UncompressedSize64: uint64(len(f.Body))})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write([]byte(f.Body)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(f.Body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Check fails t when txt breaks an invariant of format.Text (the
// conformance suite's formattest.CheckText) or of the office and e-book
// formats: Markdown, every part ending with a newline.
func Check(t testing.TB, txt *format.Text) {
	t.Helper()
	formattest.CheckText(t, txt)
	if txt.Format != "markdown" {
		t.Errorf("Format = %q, want markdown", txt.Format)
	}
	for i, p := range txt.Parts {
		if !strings.HasSuffix(txt.Text[p.Start:p.End], "\n") {
			t.Errorf("part %d (%s) does not end with a newline: %q", i, p.Fragment, txt.Text[p.Start:p.End])
		}
	}
}

// Part returns the text of the part whose fragment is frag.
func Part(t testing.TB, txt *format.Text, frag string) string {
	t.Helper()
	for _, p := range txt.Parts {
		if p.Fragment == frag {
			return txt.Text[p.Start:p.End]
		}
	}
	var have []string
	for _, p := range txt.Parts {
		have = append(have, p.Fragment)
	}
	t.Fatalf("no part %q; parts: %v", frag, have)
	return ""
}
