// Command officecompare measures the office and e-book extractors (format/
// ooxml, format/odf, format/epub) on the corpus bench/officecorpus.sh
// fetches: DOCX, ODT and EPUB text against `pandoc -t plain` as word
// multisets (recall and precision, modulo whitespace, punctuation and
// Markdown syntax), XLSX cells against excelize's GetRows, formatted and
// raw. It prints one line per file and the medians, as a Markdown table.
//
//	go run . DIR
package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/xuri/excelize/v2"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/epub"
	"github.com/retrieve-dev/retrieve/format/odf"
	"github.com/retrieve-dev/retrieve/format/ooxml"
)

type row struct {
	kind, file   string
	recall, prec float64
	note         string
	ours, ref    time.Duration
	ok           bool
	// recall2, prec2: against a second reference (odt2txt for ODT).
	recall2, prec2 float64
	ok2            bool
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: officecompare DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	extractors := map[string]format.Extractor{
		"docx": ooxml.DOCX(), "pptx": ooxml.PPTX(), "xlsx": ooxml.XLSX(), "encrypted": ooxml.XLSX(),
		"odt": odf.ODT(), "ods": odf.ODS(), "odp": odf.ODP(), "epub": epub.New(),
	}
	if p := os.Getenv("OFFICE_DUMP"); p != "" {
		dump(p, extractors[filepath.Base(filepath.Dir(p))])
		return
	}
	kinds := []string{"docx", "odt", "epub", "xlsx", "pptx", "ods", "odp", "encrypted"}
	var rows []row
	for _, kind := range kinds {
		paths, _ := filepath.Glob(filepath.Join(dir, kind, "*"))
		sort.Strings(paths)
		for _, p := range paths {
			rows = append(rows, measure(kind, p, extractors[kind]))
		}
	}
	fmt.Println("| format | file | recall | precision | ours ms | reference ms | note |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, r := range rows {
		rec, prec := "—", "—"
		if r.ok2 {
			r.note = strings.Replace(r.note, "; against odt2txt", "; odt2txt", 1)
		}
		if r.ok {
			rec, prec = fmt.Sprintf("%.3f", r.recall), fmt.Sprintf("%.3f", r.prec)
		}
		ref := "—"
		if r.ref > 0 {
			ref = fmt.Sprintf("%.1f", ms(r.ref))
		}
		fmt.Printf("| %s | %s | %s | %s | %.1f | %s | %s |\n", r.kind, r.file, rec, prec, ms(r.ours), ref, r.note)
	}
	fmt.Println()
	fmt.Println("| format | files | compared | median recall | median precision | min recall | median ours ms | median reference ms |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, kind := range kinds {
		var rec, prec, ours, ref, rec2, prec2 []float64
		n := 0
		for _, r := range rows {
			if r.kind != kind {
				continue
			}
			n++
			ours = append(ours, ms(r.ours))
			if r.ref > 0 {
				ref = append(ref, ms(r.ref))
			}
			if r.ok {
				rec, prec = append(rec, r.recall), append(prec, r.prec)
			}
			if r.ok2 {
				rec2, prec2 = append(rec2, r.recall2), append(prec2, r.prec2)
			}
		}
		if n == 0 {
			continue
		}
		fmt.Printf("| %s | %d | %d | %s | %s | %s | %.1f | %s |\n", kind, n, len(rec), med(rec), med(prec), minf(rec), median(ours), med1(ref))
		if len(rec2) > 0 {
			fmt.Printf("| %s (odt2txt) | %d | %d | %s | %s | %s | | |\n", kind, n, len(rec2), med(rec2), med(prec2), minf(rec2))
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func measure(kind, path string, x format.Extractor) row {
	r := row{kind: kind, file: filepath.Base(path)}
	b, err := os.ReadFile(path)
	if err != nil {
		r.note = err.Error()
		return r
	}
	// Best of three: the machine is shared.
	var txt *format.Text
	for i := 0; i < 3; i++ {
		start := time.Now()
		txt, err = x.Extract(context.Background(), bytes.NewReader(b), int64(len(b)), format.Options{})
		if d := time.Since(start); i == 0 || d < r.ours {
			r.ours = d
		}
	}
	if err != nil {
		r.note = "error: " + classify(err) + ": " + err.Error()
		return r
	}
	r.note = fmt.Sprintf("%d parts, %d sections", len(txt.Parts), len(txt.Sections))
	if sn := x.Info().Sniff; sn != nil && !sn(b[:min(len(b), 8192)]) {
		r.note += "; not sniffed (extension only)"
	}
	switch kind {
	case "docx", "odt", "epub":
		start := time.Now()
		var out []byte
		var err error
		if kind == "epub" {
			// pandoc 2.17 -f epub gives up on a book for one link it cannot
			// resolve (the Debian Live manuals) and drops the chapters kept
			// in subfolders (the Ubuntu packaging guide: 17k of 124k
			// words): the reference is pandoc -f html on each XHTML member.
			out, err = perMember(path)
		} else {
			out, err = exec.Command("pandoc", "-f", kind, "-t", "plain", "--wrap=none", path).Output()
		}
		r.ref = time.Since(start)
		if err != nil {
			r.note += "; pandoc failed: " + err.Error()
			return r
		}
		r.recall, r.prec = overlap(words(txt.Text), words(string(out)))
		r.ok = true
		if kind == "odt" {
			// pandoc 2.17's ODT reader drops text:section contents:
			// odt2txt is a second reference.
			if o2, err := exec.Command("odt2txt", path).Output(); err == nil {
				rec, prec := overlap(words(txt.Text), words(string(o2)))
				r.note += fmt.Sprintf("; against odt2txt: recall %.3f precision %.3f", rec, prec)
				r.recall2, r.prec2, r.ok2 = rec, prec, true
			}
		}
	case "odp", "ods":
		// pandoc 2.17 reads neither: odt2txt's text of the same content.xml
		// is the reference (for ODS it shows cells as displayed, we give
		// stored values, so formatted numbers differ).
		start := time.Now()
		out, err := exec.Command("odt2txt", path).Output()
		r.ref = time.Since(start)
		if err != nil {
			r.note += "; odt2txt failed: " + err.Error()
			return r
		}
		r.recall, r.prec = overlap(words(txt.Text), words(string(out)))
		r.ok = true
	case "pptx":
		// pandoc 2.17 does not read PPTX: the reference is every a:t run of
		// the slides and notes slides, read here with encoding/xml.
		start := time.Now()
		out, err := drawingText(path)
		r.ref = time.Since(start)
		if err != nil {
			r.note += "; reference failed: " + err.Error()
			return r
		}
		r.recall, r.prec = overlap(words(txt.Text), words(out))
		r.ok = true
	case "xlsx":
		start := time.Now()
		got, err := compareCells(path, txt)
		r.ref = time.Since(start)
		if err != nil {
			r.note += "; excelize: " + err.Error()
			return r
		}
		r.recall, r.prec, r.ok = got.recall, got.prec, true
		r.note += "; " + got.note
	}
	return r
}

func classify(err error) string {
	for _, s := range []error{format.ErrEncrypted, format.ErrTooLarge, format.ErrMalformed, format.ErrUnsupported, format.ErrNoText} {
		if errors.Is(err, s) {
			return strings.TrimPrefix(s.Error(), "format: ")
		}
	}
	return "untyped"
}

// words splits text into words: runs of letters, digits and marks.
func words(s string) map[string]int {
	out := map[string]int{}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r))
	}) {
		out[w]++
	}
	return out
}

// overlap is the multiset recall and precision of ours against ref.
func overlap(ours, ref map[string]int) (recall, precision float64) {
	common, nOurs, nRef := 0, 0, 0
	for w, n := range ref {
		nRef += n
		common += min(n, ours[w])
	}
	for _, n := range ours {
		nOurs += n
	}
	if nRef == 0 {
		recall = 1
	} else {
		recall = float64(common) / float64(nRef)
	}
	if nOurs == 0 {
		precision = 1
	} else {
		precision = float64(common) / float64(nOurs)
	}
	return recall, precision
}

type cellResult struct {
	recall, prec float64
	note         string
}

// compareCells compares every non-empty cell excelize's GetRows gives with
// the cell of the same address in our tables: recall is the share of
// excelize's cells we give equal (formatted, or raw when its formatted
// value differs), precision the share of ours that excelize has.
func compareCells(path string, txt *format.Text) (cellResult, error) {
	f, err := excelize.OpenFile(path)
	if err != nil {
		return cellResult{}, err
	}
	defer f.Close()
	ours := map[string]string{}
	for _, p := range txt.Parts {
		parseTable(p.Label, txt.Text[p.Start:p.End], ours)
	}
	ref, raw := map[string]string{}, map[string]string{}
	for _, sh := range f.GetSheetList() {
		rows, err := f.GetRows(sh)
		if err != nil {
			return cellResult{}, err
		}
		rawRows, _ := f.GetRows(sh, excelize.Options{RawCellValue: true})
		for i, r := range rows {
			for j, v := range r {
				if strings.TrimSpace(v) == "" {
					continue
				}
				k := sh + "!" + strconv.Itoa(i+1) + ":" + strconv.Itoa(j+1)
				ref[k] = strings.TrimSpace(v)
				if i < len(rawRows) && j < len(rawRows[i]) {
					raw[k] = strings.TrimSpace(rawRows[i][j])
				}
			}
		}
	}
	exact, rawEq, date, diff := 0, 0, 0, 0
	var examples []string
	for k, v := range ref {
		o, ok := ours[k]
		switch {
		case ok && o == v:
			exact++
		case ok && o == raw[k]:
			rawEq++
		case ok && sameDate(raw[k], o):
			date++
		default:
			diff++
			if len(examples) < 2 {
				examples = append(examples, fmt.Sprintf("%s excelize %q raw %q ours %q", k, v, raw[k], o))
			}
		}
	}
	extra := 0
	for k := range ours {
		if _, ok := ref[k]; !ok {
			extra++
		}
	}
	res := cellResult{recall: 1, prec: 1}
	if len(ref) > 0 {
		res.recall = float64(exact+rawEq+date) / float64(len(ref))
	}
	if len(ours) > 0 {
		res.prec = float64(len(ours)-extra) / float64(len(ours))
	}
	res.note = fmt.Sprintf("%d cells: %d equal formatted, %d equal raw, %d the same date in ISO 8601, %d differ, %d only ours", len(ref), exact, rawEq, date, diff, extra)
	if len(examples) > 0 {
		res.note += " (" + strings.Join(examples, "; ") + ")"
	}
	return res, nil
}

// parseTable reads our Markdown table back: a header of column letters, the
// row number first.
func parseTable(sheet, md string, into map[string]string) {
	var cols []int
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := splitRow(line)
		if len(cells) == 0 {
			continue
		}
		if cells[0] == "" && cols == nil {
			for _, c := range cells[1:] {
				cols = append(cols, colNum(c))
			}
			continue
		}
		if strings.HasPrefix(cells[0], "---") {
			continue
		}
		r, err := strconv.Atoi(cells[0])
		if err != nil {
			continue
		}
		for i, v := range cells[1:] {
			if v != "" && i < len(cols) {
				into[sheet+"!"+strconv.Itoa(r)+":"+strconv.Itoa(cols[i])] = v
			}
		}
	}
}

func splitRow(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	var out []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		if line[i] == '\\' && i+1 < len(line) && line[i+1] == '|' {
			cur.WriteByte('|')
			i++
			continue
		}
		if line[i] == '|' {
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
			continue
		}
		cur.WriteByte(line[i])
	}
	out = append(out, strings.TrimSpace(cur.String()))
	for i := range out {
		out[i] = strings.ReplaceAll(out[i], "<br>", "\n")
	}
	return out
}

func colNum(s string) int {
	n := 0
	for _, c := range s {
		n = n*26 + int(c-'A'+1)
	}
	return n
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func med(xs []float64) string {
	if len(xs) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f", median(xs))
}

func med1(xs []float64) string {
	if len(xs) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f", median(xs))
}

func minf(xs []float64) string {
	if len(xs) == 0 {
		return "—"
	}
	m := xs[0]
	for _, x := range xs {
		m = min(m, x)
	}
	return fmt.Sprintf("%.3f", m)
}

// sameDate reports whether ours is the ISO 8601 form of the serial date raw
// in either date system (1900, or 1904 as some workbooks declare), to the
// second.
func sameDate(raw, ours string) bool {
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return false
	}
	for _, use1904 := range []bool{false, true} {
		t, err := excelize.ExcelDateToTime(f, use1904)
		if err != nil {
			continue
		}
		t = t.Round(time.Second)
		for _, layout := range []string{"2006-01-02", "2006-01-02T15:04:05", "15:04:05"} {
			if t.Format(layout) == ours {
				return true
			}
		}
	}
	return false
}

// perMember converts each XHTML member of an EPUB with pandoc -f html, in
// archive order, navigation documents left out.
func perMember(path string) ([]byte, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	var out bytes.Buffer
	for _, f := range zr.File {
		n := strings.ToLower(f.Name)
		if !(strings.HasSuffix(n, ".xhtml") || strings.HasSuffix(n, ".html") || strings.HasSuffix(n, ".htm")) {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		if bytes.Contains(b, []byte(`epub:type="toc"`)) {
			continue
		}
		cmd := exec.Command("pandoc", "-f", "html", "-t", "plain", "--wrap=none")
		cmd.Stdin = bytes.NewReader(b)
		o, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		out.Write(o)
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}

// drawingText is the text of every a:t element of a deck's slides and
// notes slides, in archive order.
func drawingText(path string) (string, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return "", err
	}
	defer zr.Close()
	var sb strings.Builder
	for _, f := range zr.File {
		if !(strings.HasPrefix(f.Name, "ppt/slides/slide") || strings.HasPrefix(f.Name, "ppt/notesSlides/")) || !strings.HasSuffix(f.Name, ".xml") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return "", err
		}
		d := xml.NewDecoder(rc)
		in := false
		for {
			tok, err := d.Token()
			if err != nil {
				break
			}
			switch tok := tok.(type) {
			case xml.StartElement:
				in = tok.Name.Local == "t"
			case xml.EndElement:
				in = false
				sb.WriteByte(' ')
			case xml.CharData:
				if in {
					sb.Write(tok)
				}
			}
		}
		rc.Close()
	}
	return sb.String(), nil
}
