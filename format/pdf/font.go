package pdf

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
)

// font is what the extractor knows of a PDF font: how to cut a string into
// character codes, each code's Unicode text and its width.
type font struct {
	// codespace gives the byte lengths codes may have (a Type0 font's CMap);
	// empty for simple fonts (one byte a code).
	codespace []codeRange
	toUnicode *cmap
	// simple fonts: code → text from the encoding and the glyph names.
	enc      [256]string
	hasEnc   bool
	first    int
	widths   []float64
	missing  float64
	byName   map[string]float64 // standard 14 widths by glyph name
	names    [256]string        // glyph name per code (for byName)
	scale    float64            // glyph space to text space (Type3: FontMatrix)
	cid      bool
	cidWidth map[uint32]float64
	dw       float64
	cidMap   *cmap // code → CID for an embedded encoding CMap (nil: identity)
	vertical bool
}

type codeRange struct {
	n      int
	lo, hi uint32
}

var (
	glyphOnce sync.Once
	glyphs    map[string]rune
)

func glyphRune(n string) (string, bool) {
	glyphOnce.Do(func() {
		glyphs = make(map[string]rune, 4400)
		for _, line := range strings.Split(glyphListData, "\n") {
			k, v, ok := strings.Cut(line, " ")
			if !ok {
				continue
			}
			r, err := strconv.ParseUint(v, 16, 32)
			if err == nil {
				glyphs[k] = rune(r)
			}
		}
	})
	if r, ok := glyphs[n]; ok {
		return string(r), true
	}
	// uniXXXX[XXXX…], uXXXX[XX], ligature names f_f_i, suffixes a.sc.
	if base, _, ok := strings.Cut(n, "."); ok && base != "" {
		return glyphRune(base)
	}
	if strings.Contains(n, "_") {
		var b strings.Builder
		for _, part := range strings.Split(n, "_") {
			s, ok := glyphRune(part)
			if !ok {
				return "", false
			}
			b.WriteString(s)
		}
		return b.String(), true
	}
	if strings.HasPrefix(n, "uni") && len(n) >= 7 && (len(n)-3)%4 == 0 {
		var b strings.Builder
		for i := 3; i < len(n); i += 4 {
			v, err := strconv.ParseUint(n[i:i+4], 16, 16)
			if err != nil {
				return "", false
			}
			b.WriteRune(rune(v))
		}
		return b.String(), true
	}
	if strings.HasPrefix(n, "u") && len(n) >= 5 && len(n) <= 7 {
		if v, err := strconv.ParseUint(n[1:], 16, 32); err == nil && v < 0x110000 {
			return string(rune(v)), true
		}
	}
	return "", false
}

var standardAlias = map[string]string{
	"Arial": "Helvetica", "Arial,Bold": "Helvetica-Bold", "Arial,Italic": "Helvetica-Oblique",
	"Arial,BoldItalic": "Helvetica-BoldOblique", "ArialMT": "Helvetica", "Arial-BoldMT": "Helvetica-Bold",
	"Arial-ItalicMT": "Helvetica-Oblique", "Arial-BoldItalicMT": "Helvetica-BoldOblique",
	"TimesNewRoman": "Times-Roman", "TimesNewRoman,Bold": "Times-Bold", "TimesNewRoman,Italic": "Times-Italic",
	"TimesNewRoman,BoldItalic": "Times-BoldItalic", "TimesNewRomanPSMT": "Times-Roman",
	"TimesNewRomanPS-BoldMT": "Times-Bold", "TimesNewRomanPS-ItalicMT": "Times-Italic",
	"TimesNewRomanPS-BoldItalicMT": "Times-BoldItalic", "Helvetica,Bold": "Helvetica-Bold",
	"Helvetica,Italic": "Helvetica-Oblique", "Helvetica,BoldItalic": "Helvetica-BoldOblique",
	"Times,Bold": "Times-Bold", "Times,Italic": "Times-Italic", "Times,BoldItalic": "Times-BoldItalic",
	"Times": "Times-Roman",
}

func standardFont(base string) (string, bool) {
	if i := strings.IndexByte(base, '+'); i == 6 {
		base = base[7:]
	}
	if a, ok := standardAlias[base]; ok {
		base = a
	}
	if strings.HasPrefix(base, "Courier") {
		return "Courier", true
	}
	_, ok := standardWidths[base]
	return base, ok
}

var (
	widthMu    sync.Mutex
	widthCache = map[string]map[string]float64{}
)

func standardWidthTable(f string) map[string]float64 {
	widthMu.Lock()
	defer widthMu.Unlock()
	if m, ok := widthCache[f]; ok {
		return m
	}
	m := map[string]float64{}
	fs := strings.Fields(standardWidths[f])
	for i := 0; i+1 < len(fs); i += 2 {
		w, _ := strconv.Atoi(fs[i+1])
		m[fs[i]] = float64(w)
	}
	widthCache[f] = m
	return m
}

// loadFont builds a font from its dictionary.
func (d *document) loadFont(fd dict) *font {
	f := &font{scale: 0.001, missing: 0}
	sub := d.nameOf(fd["Subtype"])
	d.loadToUnicode(f, fd, sub)
	if sub == "Type0" {
		d.loadCIDFont(f, fd)
		return f
	}
	base := string(d.nameOf(fd["BaseFont"]))
	std, isStd := standardFont(base)
	// Encoding: base table, then Differences.
	eb := &encBuilder{f: f}
	fdesc := d.dictOf(fd["FontDescriptor"])
	symbolic := d.descriptor(f, fdesc)
	switch {
	case std == "Symbol":
		eb.names = symbolEncoding
		eb.haveNames = true
	case std == "ZapfDingbats":
		eb.names = zapfEncoding
		eb.haveNames = true
	}
	encSet := false
	switch e := d.resolve(fd["Encoding"]).(type) {
	case name:
		encSet = eb.base(e)
	case dict:
		if bn, ok := d.resolve(e["BaseEncoding"]).(name); ok {
			encSet = eb.base(bn)
		}
		if !encSet && !eb.haveNames {
			if symbolic || sub == "Type3" {
				// The font's built-in encoding: unknown here; codes as Latin.
				eb.base("WinAnsiEncoding")
			} else {
				eb.names = standardEncoding
				eb.haveNames = true
			}
			encSet = true
		}
		eb.differences(d, d.arrayOf(e["Differences"]))
	}
	if !encSet && !eb.haveNames && fdesc != nil {
		// The built-in encoding of an embedded Type 1 font program (TeX's
		// fonts: code 12 is "fi"), read from its clear-text part.
		if ff, ok := d.resolve(fdesc["FontFile"]).(stream); ok {
			if n, ok := type1Encoding(d, ff); ok {
				eb.names, eb.haveNames, encSet = n, true, true
			}
		}
	}
	if !encSet && !eb.haveNames {
		eb.fallback(isStd && std != "Symbol" && std != "ZapfDingbats" || !symbolic, sub)
	}
	if eb.haveNames {
		eb.apply()
	}
	f.hasEnc = true
	d.loadWidths(f, fd, sub)
	if len(f.widths) == 0 && isStd {
		f.standardMetrics(std, eb.haveNames)
	}
	if f.missing == 0 && len(f.widths) == 0 && f.byName == nil {
		f.missing = 500
	}
	return f
}

// descriptor reads what loadFont needs from a FontDescriptor (which may
// be nil): the MissingWidth into f, and whether the font is symbolic
// (flag 3 set, flag 6, nonsymbolic, not).
func (d *document) descriptor(f *font, fdesc dict) (symbolic bool) {
	if fdesc == nil {
		return false
	}
	fl := d.intOf(fdesc["Flags"])
	symbolic = fl&4 != 0 && fl&32 == 0
	if mw, ok := d.num(fdesc["MissingWidth"]); ok {
		f.missing = mw
	}
	return symbolic
}

// loadToUnicode reads a font's ToUnicode CMap into f (for a Type0 font
// also its codespace); one that cannot be decoded is left out.
func (d *document) loadToUnicode(f *font, fd dict, sub name) {
	tu, ok := d.resolve(fd["ToUnicode"]).(stream)
	if !ok {
		return
	}
	if data, err := d.decode(tu); err == nil {
		cm := parseCMap(data, d)
		f.toUnicode = cm
		if sub == "Type0" {
			f.codespace = cm.space
		}
	}
}

// encBuilder is a simple font's encoding while loadFont builds it: the
// text of each code in f.enc, or glyph names (names, when haveNames) that
// apply turns into text at the end.
type encBuilder struct {
	f         *font
	names     [256]string
	haveNames bool
}

// base applies a named base encoding: the Latin ones as text, Standard as
// glyph names. It reports whether it knew the name.
func (eb *encBuilder) base(n name) bool {
	switch n {
	case "WinAnsiEncoding":
		eb.latin(&winAnsiEncoding)
	case "MacRomanEncoding":
		eb.latin(&macRomanEncoding)
	case "StandardEncoding":
		eb.names = standardEncoding
		eb.haveNames = true
	case "PDFDocEncoding":
		eb.latin(&pdfDocEncoding)
	default:
		return false
	}
	return true
}

// fallback is the encoding of a font that names none and has no built-in
// one to read: for a standard Latin or nonsymbolic font the Standard
// glyph names (but WinAnsi text for a TrueType one), else WinAnsi text.
func (eb *encBuilder) fallback(latinFont bool, sub name) {
	if latinFont {
		eb.names = standardEncoding
		eb.haveNames = true
		if sub == "TrueType" {
			eb.haveNames = false
			eb.base("WinAnsiEncoding")
		}
	} else {
		eb.base("WinAnsiEncoding")
	}
}

// latin sets the text of codes 32 and up from a code-to-rune table,
// leaving out codes the table does not map.
func (eb *encBuilder) latin(table *[256]rune) {
	for i, r := range table {
		if r != 0xfffd && i >= 32 {
			eb.f.enc[i] = string(r)
		}
	}
}

// differences applies an Encoding's Differences array: a number sets the
// next code, each name after it renames that code and the codes after.
// The first rename of a text-only encoding keeps the text of codes not
// renamed (as a name starting with NUL).
func (eb *encBuilder) differences(d *document, diffs array) {
	code := 0
	for _, x := range diffs {
		switch v := d.resolve(x).(type) {
		case int64:
			code = int(v)
		case float64:
			code = int(v)
		case name:
			if code >= 0 && code < 256 {
				if !eb.haveNames {
					// Keep the base table's text for codes not renamed.
					for i := range eb.f.enc {
						if eb.names[i] == "" && eb.f.enc[i] != "" {
							eb.names[i] = "\x00" + eb.f.enc[i]
						}
					}
					eb.haveNames = true
				}
				eb.names[code] = string(v)
			}
			code++
		}
	}
}

// apply turns the glyph names into the text of each code (a name kept
// from a text table is that text) and keeps the names for widths by name.
func (eb *encBuilder) apply() {
	f := eb.f
	for i, n := range eb.names {
		if n == "" {
			continue
		}
		if n[0] == 0 {
			f.enc[i] = n[1:]
			continue
		}
		if s, ok := glyphRune(n); ok {
			f.enc[i] = s
		} else {
			f.enc[i] = ""
		}
	}
	f.names = eb.names
}

// loadWidths reads a simple font's FirstChar and Widths (at most 65537),
// and a Type 3 font's scale from its FontMatrix.
func (d *document) loadWidths(f *font, fd dict, sub name) {
	f.first = int(d.intOf(fd["FirstChar"]))
	for _, w := range d.arrayOf(fd["Widths"]) {
		v, _ := d.num(w)
		f.widths = append(f.widths, v)
		if len(f.widths) > 65536 {
			break
		}
	}
	if sub == "Type3" {
		if m := d.arrayOf(fd["FontMatrix"]); len(m) >= 4 {
			if a, ok := d.num(m[0]); ok && a != 0 {
				f.scale = a
			}
		}
	}
}

// standardMetrics gives a standard 14 font without Widths its built-in
// metrics: Courier's fixed width, or the font's width table by glyph name
// (names from the Standard encoding, or, for a font encoded as text only,
// found from the text through the glyph list in reverse).
func (f *font) standardMetrics(std string, haveNames bool) {
	if std == "Courier" {
		f.missing = 600
		return
	}
	f.byName = standardWidthTable(std)
	if !haveNames {
		f.names = standardEncoding
		// WinAnsi codes: find names through the glyph list in reverse.
		for i := range f.enc {
			if f.enc[i] != "" && f.names[i] == "" {
				f.names[i] = reverseGlyph(f.enc[i])
			}
		}
	}
}

var (
	reverseOnce sync.Once
	reverse     map[string]string
)

func reverseGlyph(s string) string {
	reverseOnce.Do(func() {
		glyphRune("space")
		reverse = make(map[string]string, len(glyphs))
		for k, r := range glyphs {
			if old, ok := reverse[string(r)]; !ok || len(k) < len(old) {
				reverse[string(r)] = k
			}
		}
	})
	return reverse[s]
}

func (d *document) loadCIDFont(f *font, fd dict) {
	f.cid = true
	f.dw = 1000
	f.cidWidth = map[uint32]float64{}
	switch e := d.resolve(fd["Encoding"]).(type) {
	case name:
		f.vertical = strings.HasSuffix(string(e), "-V")
		if len(f.codespace) == 0 {
			if strings.Contains(string(e), "RKSJ") || strings.Contains(string(e), "EUC") || strings.Contains(string(e), "GBK") || strings.Contains(string(e), "B5") {
				f.codespace = []codeRange{{1, 0, 0x80}, {2, 0x8140, 0xfffe}}
			} else {
				f.codespace = []codeRange{{2, 0, 0xffff}}
			}
		}
	case stream:
		if data, err := d.decode(e); err == nil {
			cm := parseCMap(data, d)
			f.codespace = cm.space
			f.cidMap = cm
		}
	}
	if len(f.codespace) == 0 {
		f.codespace = []codeRange{{2, 0, 0xffff}}
	}
	desc := d.arrayOf(fd["DescendantFonts"])
	if len(desc) == 0 {
		return
	}
	cf := d.dictOf(desc[0])
	if cf == nil {
		return
	}
	if v, ok := d.num(cf["DW"]); ok {
		f.dw = v
	}
	w := d.arrayOf(cf["W"])
	for i := 0; i < len(w); {
		c1, ok := d.num(w[i])
		if !ok || i+1 >= len(w) {
			break
		}
		if a, ok := d.resolve(w[i+1]).(array); ok {
			if c1 < 0 || c1 >= 1<<32 {
				c1 = 0
			}
			for k, x := range a {
				v, _ := d.num(x)
				f.cidWidth[uint32(c1)+uint32(k)] = v
			}
			i += 2
			continue
		}
		if i+2 >= len(w) {
			break
		}
		c2f, _ := d.num(w[i+1])
		v, _ := d.num(w[i+2])
		i += 3
		if !(c1 >= 0 && c2f >= c1 && c2f-c1 <= 65536 && c2f < 1<<32) {
			continue
		}
		for c := int64(c1); c <= int64(c2f); c++ {
			f.cidWidth[uint32(c)] = v
		}
	}
}

// each calls fn for every character code in s with its text and width in
// text space units (1/1000 of the font size before scaling, already
// scaled here to units of the font size).
func (f *font) each(s string, fn func(code uint32, n int, text string, w float64)) {
	for i := 0; i < len(s); {
		code, n := f.next(s[i:])
		i += n
		fn(code, n, f.text(code, n), f.width(code))
	}
}

func (f *font) next(s string) (uint32, int) {
	if len(f.codespace) == 0 {
		return uint32(s[0]), 1
	}
	var code uint32
	for n := 1; n <= 4 && n <= len(s); n++ {
		code = code<<8 | uint32(s[n-1])
		for _, r := range f.codespace {
			if r.n == n && code >= r.lo && code <= r.hi {
				return code, n
			}
		}
	}
	// No range matched: take the shortest range's length.
	n := f.codespace[0].n
	for _, r := range f.codespace {
		n = min(n, r.n)
	}
	n = max(1, min(n, len(s)))
	code = 0
	for k := 0; k < n; k++ {
		code = code<<8 | uint32(s[k])
	}
	return code, n
}

func (f *font) text(code uint32, n int) string {
	if f.toUnicode != nil {
		if t, ok := f.toUnicode.lookup(code); ok {
			return t
		}
	}
	if !f.cid && code < 256 {
		return f.enc[code]
	}
	return ""
}

func (f *font) width(code uint32) float64 {
	if f.cid {
		cid := code
		if f.cidMap != nil {
			if c, ok := f.cidMap.cid[code]; ok {
				cid = c
			}
		}
		if w, ok := f.cidWidth[cid]; ok {
			return w * 0.001
		}
		return f.dw * 0.001
	}
	i := int(code) - f.first
	if i >= 0 && i < len(f.widths) {
		return f.widths[i] * f.scale
	}
	if f.byName != nil && code < 256 {
		if w, ok := f.byName[f.names[code]]; ok {
			return w * 0.001
		}
	}
	return f.missing * f.scale
}

// cmap is a parsed CMap: codespace ranges, code → Unicode (ToUnicode) and
// code → CID (an encoding CMap).
type cmap struct {
	space  []codeRange
	uni    map[uint32]string
	ranges []uniRange
	cid    map[uint32]uint32
}

// uniRange maps codes lo..hi to dst, dst+1, … (UTF-16BE, the last unit
// incremented).
type uniRange struct {
	lo, hi uint32
	dst    string
}

func (cm *cmap) lookup(code uint32) (string, bool) {
	if t, ok := cm.uni[code]; ok {
		return t, true
	}
	for _, r := range cm.ranges {
		if code >= r.lo && code <= r.hi {
			u := []byte(r.dst)
			n := len(u)
			v := uint32(u[n-1]) + code - r.lo
			u[n-1] = byte(v)
			if n >= 2 {
				u[n-2] += byte(v >> 8)
			}
			return utf16Text(string(u)), true
		}
	}
	return "", false
}

func utf16Text(s string) string {
	if len(s) == 1 {
		return s
	}
	u := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
	}
	return string(utf16.Decode(u))
}

func codeOf(s string) uint32 {
	var c uint32
	for i := 0; i < len(s) && i < 4; i++ {
		c = c<<8 | uint32(s[i])
	}
	return c
}

// parseCMap reads the operators of a CMap that matter for text; entries
// past a bound (1<<20) are ignored.
func parseCMap(data []byte, d *document) *cmap {
	cm := &cmap{uni: map[uint32]string{}, cid: map[uint32]uint32{}}
	l := &lexer{b: data, maxDepth: 8, noRefs: true}
	var ops []any
	entries := 0
	for {
		tok, err := l.token()
		if err != nil {
			break
		}
		kw, isKw := tok.(keyword)
		if !isKw {
			if dl, ok := tok.(delim); ok && dl == "[" {
				v, err := l.objectFrom(tok, 0)
				if err != nil {
					break
				}
				ops = append(ops, v)
				continue
			}
			ops = append(ops, tok)
			if len(ops) > 1<<16 {
				ops = ops[:0]
			}
			continue
		}
		switch kw {
		case "endcodespacerange":
			for i := 0; i+1 < len(ops); i += 2 {
				lo, ok1 := ops[i].(string)
				hi, ok2 := ops[i+1].(string)
				if ok1 && ok2 && len(lo) > 0 && len(lo) <= 4 {
					cm.space = append(cm.space, codeRange{len(lo), codeOf(lo), codeOf(hi)})
				}
			}
		case "endbfchar":
			for i := 0; i+1 < len(ops); i += 2 {
				src, ok := ops[i].(string)
				if !ok {
					continue
				}
				switch dst := ops[i+1].(type) {
				case string:
					cm.uni[codeOf(src)] = utf16Text(dst)
				case name:
					if s, ok := glyphRune(string(dst)); ok {
						cm.uni[codeOf(src)] = s
					}
				}
			}
		case "endbfrange":
			for i := 0; i+2 < len(ops); i += 3 {
				lo, ok1 := ops[i].(string)
				hi, ok2 := ops[i+1].(string)
				if !ok1 || !ok2 {
					continue
				}
				a, b := codeOf(lo), codeOf(hi)
				if b < a || b-a > 1<<16 {
					continue
				}
				switch dst := ops[i+2].(type) {
				case string:
					if len(dst) == 0 {
						continue
					}
					if b-a > 256 && len(cm.ranges) < 1<<12 {
						// A wide range stays a range: expanding <0000>-<FFFF>
						// would cost a map of 65536 entries per font.
						cm.ranges = append(cm.ranges, uniRange{a, b, dst})
						continue
					}
					u := []byte(dst)
					for c := a; c <= b && entries < 1<<20; c++ {
						cm.uni[c] = utf16Text(string(u))
						entries++
						// Increment the last byte (with carry into the one before).
						for k := len(u) - 1; k >= 0; k-- {
							u[k]++
							if u[k] != 0 {
								break
							}
						}
					}
				case array:
					for k, x := range dst {
						if s, ok := x.(string); ok && a+uint32(k) <= b {
							cm.uni[a+uint32(k)] = utf16Text(s)
						}
					}
				}
			}
		case "endcidchar":
			for i := 0; i+1 < len(ops); i += 2 {
				src, ok := ops[i].(string)
				c, ok2 := ops[i+1].(int64)
				if ok && ok2 {
					cm.cid[codeOf(src)] = uint32(c)
				}
			}
		case "endcidrange":
			for i := 0; i+2 < len(ops); i += 3 {
				lo, ok1 := ops[i].(string)
				hi, ok2 := ops[i+1].(string)
				c, ok3 := ops[i+2].(int64)
				if !ok1 || !ok2 || !ok3 {
					continue
				}
				a, b := codeOf(lo), codeOf(hi)
				for x := a; x <= b && entries < 1<<20; x++ {
					cm.cid[x] = uint32(c) + (x - a)
					entries++
				}
			}
		}
		ops = ops[:0]
		if d != nil {
			d.tick(1)
		}
	}
	return cm
}

// type1Encoding reads "dup code /name put" entries of a Type 1 font
// program's /Encoding array (its clear-text part, before eexec).
func type1Encoding(d *document, s stream) ([256]string, bool) {
	var names [256]string
	data, err := d.decode(s)
	if err != nil {
		return names, false
	}
	if n := d.intOf(s.hdr["Length1"]); n > 0 && n < int64(len(data)) {
		data = data[:n]
	}
	if i := bytes.Index(data, []byte("eexec")); i >= 0 {
		data = data[:i]
	}
	i := bytes.Index(data, []byte("/Encoding"))
	if i < 0 {
		return names, false
	}
	data = data[i:]
	if bytes.HasPrefix(data, []byte("/Encoding StandardEncoding")) {
		return standardEncoding, true
	}
	l := &lexer{b: data, maxDepth: 4, noRefs: true}
	found := false
	var prev [3]any
	for k := 0; k < 1<<14; k++ {
		tok, err := l.token()
		if err != nil || tok == keyword("readonly") || tok == keyword("def") {
			break
		}
		if tok == keyword("put") {
			if prev[0] == keyword("dup") {
				if c, ok := prev[1].(int64); ok && c >= 0 && c < 256 {
					if n, ok := prev[2].(name); ok {
						names[c] = string(n)
						found = true
					}
				}
			}
		}
		prev[0], prev[1], prev[2] = prev[1], prev[2], tok
	}
	return names, found
}
