package ooxml_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/internal/doctest"
	"github.com/retrieve-dev/retrieve/format/ooxml"
)

func TestBadInput(t *testing.T) {
	bomb := strings.Repeat(" ", 4<<20) // 4 MiB of spaces deflate to a few KiB
	good := wordDoc(t, wp("", "hello"))
	deep := strings.Repeat("<w:sdt><w:sdtContent>", 100) + wp("", "deep") + strings.Repeat("</w:sdtContent></w:sdt>", 100)
	var many []doctest.File
	for i := 0; i < 400; i++ {
		many = append(many, doctest.File{Name: fmt.Sprintf("word/media/%d.bin", i), Body: "x"})
	}
	cases := []struct {
		name string
		x    format.Extractor
		doc  []byte
		lim  format.Limits
		want error
	}{
		{"ErrTooLarge/bomb", ooxml.DOCX(), wordDoc(t, wp("", "a"+bomb)), format.Limits{MaxInflated: 1 << 20}, format.ErrTooLarge},
		{"ErrTooLarge/declared", ooxml.DOCX(), declaredHuge(t), format.Limits{}, format.ErrTooLarge},
		{"ErrTooLarge/input", ooxml.DOCX(), good, format.Limits{MaxInput: 100}, format.ErrTooLarge},
		{"ErrTooLarge/depth", ooxml.DOCX(), wordDoc(t, deep), format.Limits{}, format.ErrTooLarge},
		{"ErrTooLarge/members", ooxml.DOCX(), wordDoc(t, wp("", "x"), many...), format.Limits{MaxParts: 10}, format.ErrTooLarge},
		{"ErrTooLarge/text", ooxml.DOCX(), wordDoc(t, strings.Repeat(wp("", "some words here"), 100)), format.Limits{MaxText: 500}, format.ErrTooLarge},
		{"ErrTooLarge/parts", ooxml.DOCX(), wordDoc(t, strings.Repeat(wp("", "p"), 20)), format.Limits{MaxParts: 10}, format.ErrTooLarge},
		{"ErrTooLarge/slides", ooxml.PPTX(), deck(t, make([]string, 12), make([]string, 12)), format.Limits{MaxParts: 10}, format.ErrTooLarge},
		{"ErrTooLarge/sheetbomb", ooxml.XLSX(), workbook(t, nil, []string{"S"}, []string{`<row r="1"><c r="A1" t="inlineStr"><is><t>` + bomb + `</t></is></c></row>`}), format.Limits{MaxInflated: 1 << 20}, format.ErrTooLarge},
		{"ErrTooLarge/widesheet", ooxml.XLSX(), workbook(t, nil, []string{"S"}, []string{wide(100)}), format.Limits{MaxText: 1 << 20}, format.ErrTooLarge},
		{"ErrMalformed/truncated", ooxml.DOCX(), good[:len(good)/2], format.Limits{}, format.ErrMalformed},
		{"ErrMalformed/notzip", ooxml.XLSX(), []byte("hello, not a zip"), format.Limits{}, format.ErrMalformed},
		{"ErrMalformed/external", ooxml.DOCX(), doctest.Zip(t,
			doctest.File{Name: "_rels/.rels", Body: rels("officeDocument", "!file:///etc/passwd")}), format.Limits{}, format.ErrMalformed},
		{"ErrMalformed/climb", ooxml.DOCX(), doctest.Zip(t,
			doctest.File{Name: "_rels/.rels", Body: rels("officeDocument", "../../../../etc/passwd")},
			doctest.File{Name: "etc/passwd", Body: "<w:document/>"}), format.Limits{}, format.ErrMalformed},
		{"ErrMalformed/nomain", ooxml.PPTX(), doctest.Zip(t, doctest.File{Name: "[Content_Types].xml", Body: contentTypes}), format.Limits{}, format.ErrMalformed},
		{"ErrMalformed/xml", ooxml.DOCX(), wordDoc(t, "<w:p><w:r><w:t>open"), format.Limits{}, format.ErrMalformed},
		{"ErrMalformed/entities", ooxml.DOCX(), doctest.Zip(t,
			doctest.File{Name: "_rels/.rels", Body: rels("officeDocument", "word/document.xml")},
			doctest.File{Name: "word/document.xml", Body: `<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY x SYSTEM "file:///etc/passwd">]><w:document ` + nsW + `><w:body>` + wp("", "&b;&x;") + `</w:body></w:document>`}), format.Limits{}, format.ErrMalformed},
		{"ErrMalformed/duplicate", ooxml.DOCX(), doctest.Zip(t,
			doctest.File{Name: "_rels/.rels", Body: rels("officeDocument", "word/document.xml")},
			doctest.File{Name: "word/document.xml", Body: "<w:document/>"},
			doctest.File{Name: "word/document.xml", Body: "<w:document/>"}), format.Limits{}, format.ErrMalformed},
		{"ErrEncrypted", ooxml.XLSX(), compound("EncryptionInfo"), format.Limits{}, format.ErrEncrypted},
		{"ErrUnsupported/legacy", ooxml.DOCX(), compound("WordDocument"), format.Limits{}, format.ErrUnsupported},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			txt, err := extract(t, c.x, c.doc, c.lim)
			if !errors.Is(err, c.want) {
				t.Fatalf("error = %v, want %v", err, c.want)
			}
			if txt != nil {
				t.Errorf("text = %q with an error", txt.Text)
			}
		})
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := wordDoc(t, wp("", "x"))
	_, err := ooxml.DOCX().Extract(ctx, bytes.NewReader(b), int64(len(b)), format.Options{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

// TestExternalRelationshipNotRead: a DOCX whose styles relationship is
// external still extracts, without reading it.
func TestExternalRelationshipNotRead(t *testing.T) {
	b := doctest.Zip(t,
		doctest.File{Name: "_rels/.rels", Body: rels("officeDocument", "word/document.xml")},
		doctest.File{Name: "word/_rels/document.xml.rels", Body: rels("styles", "!http://127.0.0.1:1/styles.xml", "numbering", "../../../numbering.xml")},
		doctest.File{Name: "word/document.xml", Body: `<w:document ` + nsW + `><w:body>` + wp("Heading1", "Kept") + `</w:body></w:document>`},
	)
	txt := mustExtract(t, ooxml.DOCX(), b)
	if got, want := txt.Text, "Kept\n"; got != want {
		t.Errorf("text = %q, want %q (no heading: its style was not read)", got, want)
	}
}

// declaredHuge is a zip whose document.xml says it inflates to 1 TiB.
func declaredHuge(t *testing.T) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("_rels/.rels")
	w.Write([]byte(rels("officeDocument", "word/document.xml")))
	body := []byte("<w:document/>")
	raw, err := zw.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Store, CRC32: crc32.ChecksumIEEE(body),
		CompressedSize64: uint64(len(body)), UncompressedSize64: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	raw.Write(body)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// compound is the start of an OLE compound file with a directory entry
// named stream (UTF-16LE), as an encrypted OOXML file or a legacy .doc.
func compound(stream string) []byte {
	b := []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
	b = append(b, make([]byte, 1024)...)
	for _, c := range stream {
		b = append(b, byte(c), 0)
	}
	return append(b, make([]byte, 512)...)
}

// wide is sheet data with a value in column A and one in XFD on each of rows
// rows: a few hundred bytes that would render 16,384 columns per row.
func wide(rows int) string {
	var sb strings.Builder
	for r := 1; r <= rows; r++ {
		fmt.Fprintf(&sb, `<row r="%d"><c r="A%d"><v>1</v></c><c r="XFD%d"><v>2</v></c></row>`, r, r, r)
	}
	return sb.String()
}
