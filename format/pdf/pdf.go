package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/retrieve-dev/retrieve/format"
)

// Version is the extractor's version, recorded in provenance.metadata so
// that a verification knows which extractor produced the text it compares.
const Version = "1"

// maxCached is the most objects kept parsed between pages.
const maxCached = 20000

// LayoutDeduction is the confidence deduction for text whose reading order
// was reconstructed by the layout pass (see the package doc).
const LayoutDeduction = 0.05

// Extractor is the PDF text extractor; its zero value is ready to use.
type Extractor struct{}

// New returns the PDF extractor.
func New() *Extractor { return &Extractor{} }

var _ format.Extractor = (*Extractor)(nil)

// Info describes the format: pdf, by media type, extension and magic.
func (*Extractor) Info() format.Info {
	return format.Info{
		Name:       "pdf",
		Extractor:  "retrieve/format/pdf",
		Version:    Version,
		MediaTypes: []string{"application/pdf", "application/x-pdf"},
		Extensions: []string{".pdf"},
		Sniff:      Sniff,
	}
}

// Sniff reports whether head starts like a PDF ("%PDF-" within the first
// 1024 bytes, where readers look for it).
func Sniff(head []byte) bool {
	return bytes.Contains(head[:min(len(head), 1024)], []byte("%PDF-"))
}

// pageRef is one page of the page tree with its inherited attributes.
type pageRef struct {
	dict     dict
	ref      objRef
	res      dict
	mediaBox rect
	rotate   int
}

// Extract returns the text of the PDF's pages (or of opts.Parts' pages).
func (e *Extractor) Extract(ctx context.Context, r io.ReaderAt, size int64, opts format.Options) (t *format.Text, err error) {
	lim := opts.Limits.WithDefaults()
	if size > lim.MaxInput {
		return nil, fmt.Errorf("%w: %d bytes over the %d-byte input limit", format.ErrTooLarge, size, lim.MaxInput)
	}
	defer func() {
		if p := recover(); p != nil {
			if a, ok := p.(abort); ok {
				t, err = nil, abortErr(a.err)
				return
			}
			t, err = nil, fmt.Errorf("%w: the parser failed: %v (%s)", format.ErrMalformed, p, firstFrame(debug.Stack()))
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d, err := open(ctx, r, size, lim)
	if err != nil {
		return nil, err
	}
	if d.trailer["Encrypt"] != nil {
		return nil, fmt.Errorf("%w: the PDF is encrypted (decrypt it first, e.g. qpdf --decrypt in.pdf out.pdf)", format.ErrEncrypted)
	}
	root := d.dictOf(d.trailer["Root"])
	if root == nil {
		return nil, fmt.Errorf("%w: no document catalog", format.ErrMalformed)
	}
	pages, err := d.pageList(root)
	if err != nil {
		return nil, err
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("%w: the PDF has no pages", format.ErrMalformed)
	}
	want, err := selectPages(opts.Parts, len(pages))
	if err != nil {
		return nil, err
	}
	labels := d.pageLabels(root, len(pages))

	var b strings.Builder
	out := &format.Text{Format: "text"}
	anyText, images := false, 0
	fonts := map[objRef]*font{}
	pageStart := map[int]int{}
	for k, n := range want {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if k > 0 {
			b.WriteString("\f\n")
		}
		p := pages[n-1]
		pg := d.pageGlyphs(p, fonts)
		images += pg.images
		if len(d.cache) > maxCached {
			// Objects read for earlier pages (annotations, content
			// headers) go: memory follows a page, not the file. Fonts
			// stay parsed in fonts.
			clear(d.cache)
		}
		lines := layout(pg.glyphs)
		dehyphenate(lines)
		start := b.Len()
		pageStart[n] = start
		part := format.Part{Kind: "page", Index: n, Label: labels[n-1], Fragment: "page=" + strconv.Itoa(n), Start: start}
		for _, l := range lines {
			if l.text == "" {
				continue
			}
			anyText = true
			ls := b.Len()
			b.WriteString(l.text)
			b.WriteByte('\n')
			for _, s := range l.spans {
				box := s.box
				part.Boxes = append(part.Boxes, format.Box{Start: ls + s.start, End: ls + s.end,
					X0: round2(box.x0 - p.mediaBox.x0), Y0: round2(box.y0 - p.mediaBox.y0),
					X1: round2(box.x1 - p.mediaBox.x0), Y1: round2(box.y1 - p.mediaBox.y0)})
			}
		}
		if b.Len() == start {
			b.WriteByte('\n')
		}
		part.End = b.Len()
		if int64(b.Len()) > lim.MaxText {
			return nil, fmt.Errorf("%w: the text is over %d bytes (Limits.MaxText)", format.ErrTooLarge, lim.MaxText)
		}
		out.Parts = append(out.Parts, part)
	}
	if !anyText {
		return nil, d.noTextErr(images)
	}
	out.Text = b.String()
	out.Sections = d.outline(root, pages, pageStart, len(out.Text))
	out.Assumptions = []string{
		"PDF text: reading order reconstructed by a layout pass (lines by baseline, columns by XY-cut); words hyphenated across lines joined",
	}
	out.Deductions = []format.Deduction{{Reason: "PDF reading order reconstructed by a layout pass", Amount: LayoutDeduction}}
	out.Metadata = map[string]any{"pages": len(pages), "pdf_version": d.version}
	d.describe(out)
	return out, nil
}

// abortErr is the error an abort panic (a limit, a cancelled context, a
// damaged file deep in the parser) ends Extract with: cancellation as
// is, anything but too-large or malformed made malformed.
func abortErr(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if !errors.Is(err, format.ErrTooLarge) && !errors.Is(err, format.ErrMalformed) {
		err = fmt.Errorf("%w: %v", format.ErrMalformed, err)
	}
	return err
}

// noTextErr says why a PDF gave no text: damage when nothing decoded and
// no image was drawn, else ErrNoText naming the likely cause (fonts
// without Unicode maps, or a scan) and the way out (OCR).
func (d *document) noTextErr(images int) error {
	if len(d.problems) > 0 && images == 0 {
		return fmt.Errorf("%w: no text could be decoded: %s", format.ErrMalformed, d.problems[0])
	}
	what := "its pages hold no text"
	if d.unmapped > 0 {
		what = fmt.Sprintf("its fonts give no Unicode text for the %d glyphs drawn (fonts without a ToUnicode map)", d.unmapped)
	} else if images > 0 {
		what = "its pages hold only images (a scan?)"
	}
	return fmt.Errorf("%w: %s; run OCR on it first (e.g. ocrmypdf) to add a text layer", format.ErrNoText, what)
}

// describe adds to out what the PDF says about itself (the Info
// dictionary's producer, creator and title) and what reading it cost:
// glyphs left out for want of a Unicode mapping, damage worked around.
func (d *document) describe(out *format.Text) {
	if info := d.dictOf(d.trailer["Info"]); info != nil {
		for key, field := range map[name]string{"Producer": "producer", "Creator": "creator", "Title": "title"} {
			if s, ok := d.strOf(info[key]); ok && strings.TrimSpace(s) != "" {
				out.Metadata[field] = textString(s)
			}
		}
	}
	if d.unmapped > 0 {
		// Glyphs without a Unicode mapping are left out, never guessed:
		// say how many, so that a reader knows the text may miss words.
		out.Metadata["unmapped_glyphs"] = d.unmapped
		out.Assumptions = append(out.Assumptions, fmt.Sprintf("PDF text: %d glyphs have no Unicode mapping in their fonts and are left out", d.unmapped))
	}
	if len(d.problems) > 0 {
		out.Assumptions = append(out.Assumptions, fmt.Sprintf("PDF damage worked around (%d problems), e.g. %s", len(d.problems), d.problems[0]))
	}
}

func firstFrame(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	for i, l := range lines {
		if strings.Contains(l, "format/pdf.") && !strings.Contains(l, "Extract.func") && i+1 < len(lines) {
			return strings.TrimSpace(lines[i+1])
		}
	}
	return "?"
}

func round2(f float64) float64 {
	return float64(int64(f*100+copysign(0.5, f))) / 100
}

func copysign(a, b float64) float64 {
	if b < 0 {
		return -a
	}
	return a
}

// selectPages turns ranges into page numbers, ascending and unique.
func selectPages(parts []format.Range, n int) ([]int, error) {
	if len(parts) == 0 {
		out := make([]int, n)
		for i := range out {
			out[i] = i + 1
		}
		return out, nil
	}
	seen := map[int]bool{}
	var out []int
	for _, r := range parts {
		if r.From < 1 || r.To < r.From {
			return nil, fmt.Errorf("%w: page range %d-%d", format.ErrNoPart, r.From, r.To)
		}
		if r.To > n {
			return nil, fmt.Errorf("%w: page %d of a %d-page PDF", format.ErrNoPart, r.To, n)
		}
		for p := r.From; p <= r.To; p++ {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Ints(out)
	return out, nil
}

// pageList walks the page tree (dictionaries only: no content is read).
func (d *document) pageList(root dict) ([]pageRef, error) {
	var pages []pageRef
	visited := map[objRef]bool{}
	var walk func(x any, res dict, mb rect, rotate int, depth int) error
	walk = func(x any, res dict, mb rect, rotate int, depth int) error {
		if depth > d.lim.MaxDepth {
			return fmt.Errorf("%w: page tree deeper than %d", format.ErrTooLarge, d.lim.MaxDepth)
		}
		ref, isRef := x.(objRef)
		if isRef {
			if visited[ref] {
				return fmt.Errorf("%w: the page tree has a cycle (object %d)", format.ErrMalformed, ref.num)
			}
			visited[ref] = true
		}
		node := d.dictOf(x)
		if node == nil {
			d.problem("page tree node missing")
			return nil
		}
		if r := d.dictOf(node["Resources"]); r != nil {
			res = r
		}
		if a := d.arrayOf(node["MediaBox"]); len(a) == 4 {
			var v [4]float64
			for i := range v {
				v[i], _ = d.num(a[i])
			}
			mb = rect{min(v[0], v[2]), min(v[1], v[3]), max(v[0], v[2]), max(v[1], v[3])}
		}
		if v, ok := d.num(node["Rotate"]); ok {
			rotate = ((int(v)/90)%4 + 4) % 4
		}
		kids, hasKids := d.resolve(node["Kids"]).(array)
		if d.nameOf(node["Type"]) == "Page" || !hasKids {
			if len(pages) >= d.lim.MaxParts {
				return fmt.Errorf("%w: more than %d pages (Limits.MaxParts)", format.ErrTooLarge, d.lim.MaxParts)
			}
			pages = append(pages, pageRef{dict: node, ref: ref, res: res, mediaBox: mb, rotate: rotate})
			return nil
		}
		for _, k := range kids {
			d.tick(1)
			if err := walk(k, res, mb, rotate, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	err := walk(root["Pages"], nil, rect{0, 0, 612, 792}, 0, 0)
	return pages, err
}

// pageGlyphs interprets one page's content streams.
func (d *document) pageGlyphs(p pageRef, fonts map[objRef]*font) *pageGlyphs {
	out := &pageGlyphs{glyphs: d.glyphBuf[:0]}
	defer func() { d.glyphBuf = out.glyphs[:0] }()
	in := &interp{d: d, out: out, rotate: p.rotate, fonts: fonts}
	in.gs = gstate{ctm: identity, th: 1}
	in.tm, in.tlm = identity, identity
	var data []byte
	var streams []any
	switch c := d.resolve(p.dict["Contents"]).(type) {
	case stream:
		streams = []any{c}
	case array:
		streams = c
	}
	for _, x := range streams {
		s, ok := d.resolve(x).(stream)
		if !ok {
			continue
		}
		b, err := d.decode(s)
		if err != nil {
			d.problem("page content: %v", err)
			continue
		}
		// The streams of a page are one content stream cut anywhere.
		if len(streams) == 1 {
			data = b
		} else {
			data = append(data, b...)
			data = append(data, '\n')
		}
		if int64(len(data)) > d.lim.MaxInflated {
			fail(fmt.Errorf("%w: a page's content inflates past %d bytes (Limits.MaxInflated)", format.ErrTooLarge, d.lim.MaxInflated))
		}
	}
	if want := min(len(data)/3, 1<<15); cap(out.glyphs) < want {
		out.glyphs = make([]glyph, 0, want)
	}
	in.run(data, p.res, 0)
	d.annotations(in, p)
	return out
}

// annotations draws the appearance streams of the page's annotations (form
// fields, signatures, free text), as viewers and pdftotext show them.
func (d *document) annotations(in *interp, p pageRef) {
	for i, a := range d.arrayOf(p.dict["Annots"]) {
		if i >= 10000 {
			return
		}
		ad := d.dictOf(a)
		if ad == nil {
			continue
		}
		switch d.nameOf(ad["Subtype"]) {
		case "Link", "Popup":
			continue
		}
		if fl := d.intOf(ad["F"]); fl&(2|32) != 0 {
			continue // hidden, no view
		}
		ap := d.dictOf(ad["AP"])
		if ap == nil {
			continue
		}
		var form any = ap["N"]
		if _, ok := d.resolve(form).(stream); !ok {
			states := d.dictOf(form)
			if states == nil {
				continue
			}
			form = states[d.nameOf(ad["AS"])]
		}
		s, ok := d.resolve(form).(stream)
		if !ok {
			continue
		}
		rect := d.arrayOf(ad["Rect"])
		bbox := d.arrayOf(s.hdr["BBox"])
		if len(rect) != 4 || len(bbox) != 4 {
			continue
		}
		var r, b [4]float64
		for k := 0; k < 4; k++ {
			r[k], _ = d.num(rect[k])
			b[k], _ = d.num(bbox[k])
		}
		m := identity
		if ma := d.arrayOf(s.hdr["Matrix"]); len(ma) == 6 {
			for k := range m {
				m[k], _ = d.num(ma[k])
			}
		}
		// The form's box, transformed by its matrix, is fitted to the
		// annotation's rectangle (ISO 32000-2 §12.5.5).
		bx0, by0 := m.apply(b[0], b[1])
		bx1, by1 := m.apply(b[2], b[3])
		bx0, bx1 = min(bx0, bx1), max(bx0, bx1)
		by0, by1 = min(by0, by1), max(by0, by1)
		if bx1-bx0 < 1e-6 || by1-by0 < 1e-6 {
			continue
		}
		rx0, rx1 := min(r[0], r[2]), max(r[0], r[2])
		ry0, ry1 := min(r[1], r[3]), max(r[1], r[3])
		sx, sy := (rx1-rx0)/(bx1-bx0), (ry1-ry0)/(by1-by0)
		fit := matrix{sx, 0, 0, sy, rx0 - bx0*sx, ry0 - by0*sy}
		in.gs = gstate{ctm: m.mul(fit), th: 1}
		in.tm, in.tlm = identity, identity
		in.stack = in.stack[:0]
		data, err := d.decode(s)
		if err != nil {
			continue
		}
		res := d.dictOf(s.hdr["Resources"])
		if res == nil {
			res = p.res
		}
		in.run(data, res, 1)
	}
}

// pageLabels reads the /PageLabels number tree: labels such as "iv" or
// "A-3"; pages without one are labelled with their number.
func (d *document) pageLabels(root dict, n int) []string {
	labels := make([]string, n)
	for i := range labels {
		labels[i] = strconv.Itoa(i + 1)
	}
	tree := d.dictOf(root["PageLabels"])
	if tree == nil {
		return labels
	}
	type entry struct {
		start int
		d     dict
	}
	var entries []entry
	var walk func(node dict, depth int)
	walk = func(node dict, depth int) {
		if node == nil || depth > d.lim.MaxDepth || len(entries) > n+1 {
			return
		}
		nums := d.arrayOf(node["Nums"])
		for i := 0; i+1 < len(nums); i += 2 {
			entries = append(entries, entry{int(d.intOf(nums[i])), d.dictOf(nums[i+1])})
		}
		for _, k := range d.arrayOf(node["Kids"]) {
			walk(d.dictOf(k), depth+1)
		}
	}
	walk(tree, 0)
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].start < entries[j].start })
	for i, e := range entries {
		if e.start < 0 || e.start >= n {
			continue
		}
		end := n
		if i+1 < len(entries) && entries[i+1].start < n {
			end = entries[i+1].start
		}
		style := d.nameOf(e.d["S"])
		prefix, _ := d.strOf(e.d["P"])
		prefix = textString(prefix)
		st := int(d.intOf(e.d["St"]))
		if st < 1 {
			st = 1
		}
		for p := e.start; p < end; p++ {
			k := st + p - e.start
			var num string
			switch style {
			case "D":
				num = strconv.Itoa(k)
			case "R":
				num = strings.ToUpper(roman(k))
			case "r":
				num = roman(k)
			case "A":
				num = letters(k)
			case "a":
				num = strings.ToLower(letters(k))
			}
			if l := prefix + num; l != "" {
				labels[p] = l
			}
		}
	}
	return labels
}

func roman(n int) string {
	if n <= 0 || n >= 4000 {
		return strconv.Itoa(n)
	}
	vals := []int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	syms := []string{"m", "cm", "d", "cd", "c", "xc", "l", "xl", "x", "ix", "v", "iv", "i"}
	var b strings.Builder
	for i, v := range vals {
		for n >= v {
			b.WriteString(syms[i])
			n -= v
		}
	}
	return b.String()
}

func letters(n int) string {
	if n <= 0 || n > 26*100 {
		return strconv.Itoa(n)
	}
	return strings.Repeat(string(rune('A'+(n-1)%26)), (n-1)/26+1)
}

// textString decodes a PDF text string: UTF-16BE with a BOM, UTF-8 with a
// BOM (PDF 2.0), else PDFDocEncoding.
func textString(s string) string {
	if len(s) >= 2 && s[0] == 0xfe && s[1] == 0xff {
		u := make([]uint16, 0, len(s)/2)
		for i := 2; i+1 < len(s); i += 2 {
			u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
		}
		return strings.TrimSpace(string(utf16.Decode(u)))
	}
	if strings.HasPrefix(s, "\xef\xbb\xbf") {
		return strings.TrimSpace(s[3:])
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		r := pdfDocEncoding[s[i]]
		if r == 0xfffd || r < 0x20 && r != '\t' && r != '\n' {
			continue
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// outline reads the bookmarks into sections that start at their page's
// part; entries whose page was not extracted are left out.
func (d *document) outline(root dict, pages []pageRef, pageStart map[int]int, textLen int) []format.Section {
	ol := d.dictOf(root["Outlines"])
	if ol == nil {
		return nil
	}
	byRef := map[objRef]int{}
	for i, p := range pages {
		if p.ref != (objRef{}) {
			byRef[p.ref] = i + 1
		}
	}
	var secs []format.Section
	visited := map[objRef]bool{}
	var walk func(first any, level int)
	walk = func(x any, level int) {
		if level > d.lim.MaxDepth {
			return
		}
		for steps := 0; x != nil && steps < 1<<16; steps++ {
			ref, isRef := x.(objRef)
			if isRef {
				if visited[ref] {
					return
				}
				visited[ref] = true
			}
			item := d.dictOf(x)
			if item == nil {
				return
			}
			d.tick(1)
			title, _ := d.strOf(item["Title"])
			if page := d.destPage(root, item, byRef); page > 0 {
				if start, ok := pageStart[page]; ok {
					secs = append(secs, format.Section{Title: textString(title), Level: level, Start: start})
				}
			}
			if item["First"] != nil {
				walk(item["First"], level+1)
			}
			x = item["Next"]
		}
	}
	walk(ol["First"], 1)
	sort.SliceStable(secs, func(i, j int) bool { return secs[i].Start < secs[j].Start })
	for i := range secs {
		secs[i].End = textLen
		for j := i + 1; j < len(secs); j++ {
			if secs[j].Level <= secs[i].Level && secs[j].Start > secs[i].Start {
				secs[i].End = secs[j].Start
				break
			}
		}
	}
	return secs
}

// destPage finds the page an outline item points to (a /Dest or a GoTo
// action; named destinations through /Dests or the /Names tree).
func (d *document) destPage(root, item dict, byRef map[objRef]int) int {
	dest := item["Dest"]
	if dest == nil {
		if a := d.dictOf(item["A"]); a != nil && d.nameOf(a["S"]) == "GoTo" {
			dest = a["D"]
		}
	}
	for hops := 0; hops < 4; hops++ {
		switch v := d.resolve(dest).(type) {
		case array:
			if len(v) == 0 {
				return 0
			}
			if r, ok := v[0].(objRef); ok {
				return byRef[r]
			}
			if n, ok := v[0].(int64); ok && n >= 0 {
				return int(n) + 1
			}
			return 0
		case dict:
			dest = v["D"]
		case name:
			dest = d.dictOf(root["Dests"])[v]
		case string:
			dest = d.nameTree(d.dictOf(d.dictOf(root["Names"])["Dests"]), v, 0)
		default:
			return 0
		}
	}
	return 0
}

func (d *document) nameTree(node dict, key string, depth int) any {
	if node == nil || depth > d.lim.MaxDepth {
		return nil
	}
	names := d.arrayOf(node["Names"])
	for i := 0; i+1 < len(names); i += 2 {
		if s, _ := d.strOf(names[i]); s == key {
			return names[i+1]
		}
	}
	for _, k := range d.arrayOf(node["Kids"]) {
		kid := d.dictOf(k)
		if lim := d.arrayOf(kid["Limits"]); len(lim) == 2 {
			lo, _ := d.strOf(lim[0])
			hi, _ := d.strOf(lim[1])
			if key < lo || key > hi {
				continue
			}
		}
		if v := d.nameTree(kid, key, depth+1); v != nil {
			return v
		}
	}
	return nil
}
