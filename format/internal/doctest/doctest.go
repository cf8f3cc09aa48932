// Package doctest helps the office and e-book extractors' tests: it builds
// zip packages in memory and checks the invariants every format.Text must
// hold (parts in order, without overlap, each ending with a newline;
// sections inside the text).
package doctest

import (
	"archive/zip"
	"bytes"
	"errors"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
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

// Check fails t when txt breaks an invariant of format.Text.
func Check(t testing.TB, txt *format.Text) {
	t.Helper()
	if txt.Format != "markdown" {
		t.Errorf("Format = %q, want markdown", txt.Format)
	}
	end := 0
	for i, p := range txt.Parts {
		if p.Start < end || p.End < p.Start || p.End > len(txt.Text) {
			t.Fatalf("part %d %+v: out of order or outside the text (previous end %d, text %d bytes)", i, p, end, len(txt.Text))
		}
		if !strings.HasSuffix(txt.Text[p.Start:p.End], "\n") {
			t.Errorf("part %d (%s) does not end with a newline: %q", i, p.Fragment, txt.Text[p.Start:p.End])
		}
		if p.Fragment == "" || p.Kind == "" || p.Index < 1 {
			t.Errorf("part %d: fragment %q kind %q index %d", i, p.Fragment, p.Kind, p.Index)
		}
		end = p.End
	}
	for i, s := range txt.Sections {
		if s.Start < 0 || s.End < s.Start || s.End > len(txt.Text) || s.Title == "" || s.Level < 1 {
			t.Errorf("section %d %+v: invalid (text %d bytes)", i, s, len(txt.Text))
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

// Typed fails t when a failed extraction's error is none of the format
// sentinels: untrusted input may be refused, never with an untyped error.
func Typed(t testing.TB, err error) {
	t.Helper()
	for _, s := range []error{format.ErrUnsupported, format.ErrEncrypted, format.ErrNoText, format.ErrTooLarge, format.ErrMalformed, format.ErrNoPart} {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("untyped error: %v", err)
}

// FuzzLimits keep a fuzz iteration small: a mutated length field must not
// make one run inflate megabytes.
var FuzzLimits = format.Limits{MaxInflated: 1 << 20, MaxText: 1 << 20, MaxParts: 200, MaxDepth: 64}
