package pdf

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Layout parameters, in units of the font size (em). They were tuned on the
// corpus of bench/pdfcorpus.sh against pdftotext.
const (
	// spaceGap: a gap between two glyphs wider than this is a word space
	// (inter-letter kerning stays under 0.1 em, word spaces are 0.2–0.35).
	spaceGap = 0.15
	// chunkGap: a gap wider than this ends a chunk (a run of words drawn
	// together): table cells and columns are separate chunks.
	chunkGap = 1.0
	// bandGap: a horizontal strip this high with nothing in it separates
	// regions read one after the other (a blank line or more).
	bandGap = 1.0
	// gutterGap: the narrowest vertical strip taken for a column gutter.
	gutterGap = 0.8
	// columnFill: a side of a gutter is a text column when its lines fill
	// this much of its width (a table's cells fill less).
	columnFill = 0.6
	// columnWidth: the narrowest text column, in em.
	columnWidth = 8.0
)

// rect is a box in the page's user space.
type rect struct{ x0, y0, x1, y1 float64 }

func (r rect) union(o rect) rect {
	return rect{min(r.x0, o.x0), min(r.y0, o.y0), max(r.x1, o.x1), max(r.y1, o.y1)}
}

// word is a run of glyphs with no space between them.
type word struct {
	text   string
	x0, x1 float64 // upright frame
	box    rect    // user space
}

// chunk is a run of words on one baseline drawn together.
type chunk struct {
	words  []word
	x0, x1 float64
	y      float64
	size   float64
}

func (c *chunk) top() float64    { return c.y + 0.75*c.size }
func (c *chunk) bottom() float64 { return c.y - 0.2*c.size }

// textLine is one output line: its text and the user-space boxes of its
// spans (byte offsets within text).
type textLine struct {
	text  string
	spans []span
	block int
}

type span struct {
	start, end int
	box        rect
}

var ligatures = map[rune]string{
	0xFB00: "ff", 0xFB01: "fi", 0xFB02: "fl", 0xFB03: "ffi", 0xFB04: "ffl", 0xFB05: "st", 0xFB06: "st",
}

// normalize maps a glyph's text to what a reader searches for: ligatures
// to their letters, no-break and other spaces to a space, controls
// dropped.
func normalize(s string) string {
	simple := true
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x80 {
			simple = false
			break
		}
	}
	if simple {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case ligatures[r] != "":
			b.WriteString(ligatures[r])
		case r == utf8.RuneError:
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		case r < 0x20 || unicode.Is(unicode.Cc, r) || r == 0xFEFF:
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// sameLine reports whether glyph g continues the line of the glyph last
// drawn before it, gap after it, s the smaller of their sizes: a baseline
// within 0.3 of the size, or, for a glyph in a size change (a superscript
// or subscript), within 0.6 and close enough along the line.
func sameLine(g, last *glyph, gap, s float64) bool {
	return math.Abs(g.y-last.y) < 0.3*s || (math.Abs(g.y-last.y) < 0.6*s && g.size < 0.9*last.size || last.size < 0.9*g.size) && gap < spaceGap*s && gap > -0.5*s
}

// chunks groups glyphs (in drawing order) into chunks of words.
func chunks(gs []glyph, rotation int) []*chunk {
	var out []*chunk
	var c *chunk
	var w *word
	var last *glyph
	var sb strings.Builder
	pendingSpace := false
	spaceAt := 0.0
	flushWord := func() {
		if w != nil {
			w.text = logicalOrder(sb.String())
			sb.Reset()
			if w.text != "" {
				c.words = append(c.words, *w)
			}
			w = nil
		}
	}
	flushChunk := func() {
		flushWord()
		if c != nil && len(c.words) > 0 {
			c.x0, c.x1 = c.words[0].x0, c.words[0].x1
			for _, w := range c.words {
				c.x0, c.x1 = min(c.x0, w.x0), max(c.x1, w.x1)
			}
			out = append(out, c)
		}
		c = nil
		pendingSpace = false
	}
	for i := range gs {
		g := &gs[i]
		if g.rot != rotation {
			continue
		}
		t := normalize(g.text)
		blank := strings.TrimSpace(t) == ""
		if c != nil && last != nil {
			s := min(g.size, last.size)
			gap := g.x0 - last.x1
			if !sameLine(g, last, gap, s) || gap > chunkGap*max(g.size, last.size) || gap < -0.5*s {
				flushChunk()
			} else if blank {
				// An explicit space counts unless the next glyph moves back
				// over it (some writers draw a space and kern the next
				// letter onto it); a zero-width space still counts.
				pendingSpace = true
				spaceAt = (g.x0 + g.x1) / 2
				continue
			} else if pendingSpace && g.x0 >= spaceAt-0.01*s || gap > spaceGap*s {
				flushWord()
			} else if w != nil && t == last.text && math.Abs(g.x0-last.x0) < 0.1*s && math.Abs(g.y-last.y) < 0.1*s {
				// The same glyph drawn again over itself (fake bold).
				continue
			}
		}
		if blank {
			continue
		}
		pendingSpace = false
		if c == nil {
			c = &chunk{y: g.y, size: g.size}
		}
		if w == nil {
			w = &word{x0: g.x0, x1: g.x1, box: rect{g.ux0, g.uy0, g.ux1, g.uy1}}
		}
		sb.WriteString(t)
		w.x0, w.x1 = min(w.x0, g.x0), max(w.x1, g.x1)
		w.box = w.box.union(rect{g.ux0, g.uy0, g.ux1, g.uy1})
		if g.size > c.size {
			c.size = g.size
		}
		if math.Abs(g.y-c.y) < 0.3*g.size {
			// Keep the chunk's baseline (a superscript does not move it).
		}
		last = g
	}
	flushChunk()
	return out
}

// layout turns a page's glyphs into lines in reading order: upright text
// first, then text in the other directions.
func layout(gs []glyph) []textLine {
	var lines []textLine
	block := 0
	for r := 0; r < 4; r++ {
		cs := chunks(gs, r)
		if len(cs) == 0 {
			continue
		}
		med := medianSize(cs)
		var leaves [][]*chunk
		xycut(cs, med, 0, &leaves)
		for _, leaf := range leaves {
			for _, l := range leafLines(leaf) {
				l.block = block
				lines = append(lines, l)
			}
			block++
		}
	}
	return lines
}

func medianSize(cs []*chunk) float64 {
	s := make([]float64, len(cs))
	for i, c := range cs {
		s[i] = c.size
	}
	sort.Float64s(s)
	return s[len(s)/2]
}

// bands splits chunks into horizontal bands separated by empty strips at
// least gap high, top to bottom.
func bands(cs []*chunk, gap float64) [][]*chunk {
	sorted := append([]*chunk(nil), cs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].top() > sorted[j].top() })
	var out [][]*chunk
	var cur []*chunk
	low := math.Inf(1)
	for _, c := range sorted {
		if cur != nil && c.top() < low-gap {
			out = append(out, cur)
			cur = nil
			low = math.Inf(1)
		}
		cur = append(cur, c)
		low = min(low, c.bottom())
	}
	if cur != nil {
		out = append(out, cur)
	}
	return out
}

// gutters returns the interior vertical empty strips at least gap wide,
// as [x0, x1] pairs, left to right.
func gutters(cs []*chunk, gap float64) [][2]float64 {
	sorted := append([]*chunk(nil), cs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].x0 < sorted[j].x0 })
	var out [][2]float64
	right := sorted[0].x1
	for _, c := range sorted[1:] {
		if c.x0 > right+gap {
			out = append(out, [2]float64{right, c.x0})
		}
		right = max(right, c.x1)
	}
	return out
}

// fill is the median share of the width [x0, x1] that a region's lines
// cover with text.
func fill(cs []*chunk, x0, x1 float64) float64 {
	w := x1 - x0
	if w <= 0 {
		return 0
	}
	var fs []float64
	for _, b := range bands(cs, 0) {
		sum := 0.0
		for _, c := range b {
			sum += c.x1 - c.x0
		}
		fs = append(fs, math.Min(1, sum/w))
	}
	if len(fs) < 2 {
		return 0
	}
	sort.Float64s(fs)
	return fs[len(fs)/2]
}

// columnSplit finds a gutter that makes text columns of cs, or ok false.
func columnSplit(cs []*chunk, med float64) (left, right []*chunk, ok bool) {
	if len(cs) < 4 {
		return nil, nil, false
	}
	gs := gutters(cs, gutterGap*med)
	if len(gs) == 0 {
		return nil, nil, false
	}
	x0, x1 := cs[0].x0, cs[0].x1
	for _, c := range cs {
		x0, x1 = min(x0, c.x0), max(x1, c.x1)
	}
	best := -1.0
	for _, g := range gs {
		if g[0]-x0 < columnWidth*med || x1-g[1] < columnWidth*med {
			continue
		}
		var l, r []*chunk
		for _, c := range cs {
			if c.x1 <= g[0]+0.01 {
				l = append(l, c)
			} else {
				r = append(r, c)
			}
		}
		if fill(l, x0, g[0]) < columnFill || fill(r, g[1], x1) < columnFill {
			continue
		}
		if w := g[1] - g[0]; w > best {
			best, left, right, ok = w, l, r, true
		}
	}
	return left, right, ok
}

// xycut orders the chunks of a region: regions split by wide empty
// strips are read top to bottom; text columns left to right; when a
// full-width line crosses the gutter (a title over two columns), the runs
// of lines that share a gutter are split on their own.
func xycut(cs []*chunk, med float64, depth int, out *[][]*chunk) {
	if len(cs) < 2 || depth > 40 {
		*out = append(*out, cs)
		return
	}
	if bs := bands(cs, bandGap*med); len(bs) > 1 {
		for _, b := range bs {
			xycut(b, med, depth+1, out)
		}
		return
	}
	if l, r, ok := columnSplit(cs, med); ok {
		xycut(l, med, depth+1, out)
		xycut(r, med, depth+1, out)
		return
	}
	lines := bands(cs, 0.01*med)
	if len(lines) < 3 {
		*out = append(*out, cs)
		return
	}
	// Runs of consecutive lines that share a gutter and split into
	// columns: each run found is checked once, so the pass is linear.
	x0, x1 := cs[0].x0, cs[0].x1
	for _, c := range cs {
		x0, x1 = min(x0, c.x0), max(x1, c.x1)
	}
	var plain []*chunk
	found := false
	for i := 0; i < len(lines); {
		free := freeSpans(lines[i], x0, x1)
		j := i
		for j+1 < len(lines) {
			next := intersect(free, freeSpans(lines[j+1], x0, x1), gutterGap*med)
			if len(next) == 0 {
				break
			}
			free = next
			j++
		}
		if j-i+1 >= 3 && j-i+1 < len(lines) {
			var sub []*chunk
			for k := i; k <= j; k++ {
				sub = append(sub, lines[k]...)
			}
			if _, _, ok := columnSplit(sub, med); ok {
				found = true
				if plain != nil {
					*out = append(*out, plain)
					plain = nil
				}
				xycut(sub, med, depth+1, out)
				i = j + 1
				continue
			}
		}
		for k := i; k <= j; k++ {
			plain = append(plain, lines[k]...)
		}
		i = j + 1
	}
	if !found {
		*out = append(*out, cs)
		return
	}
	if plain != nil {
		*out = append(*out, plain)
	}
}

// freeSpans are the interior empty x-intervals of one line within [x0, x1].
func freeSpans(line []*chunk, x0, x1 float64) [][2]float64 {
	sorted := append([]*chunk(nil), line...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].x0 < sorted[j].x0 })
	var out [][2]float64
	left := x0
	for _, c := range sorted {
		if c.x0 > left {
			out = append(out, [2]float64{left, c.x0})
		}
		left = max(left, c.x1)
	}
	if x1 > left {
		out = append(out, [2]float64{left, x1})
	}
	return out
}

// intersect intersects two sorted interval lists, keeping pieces at least
// minW wide that are interior (not touching the region's edges is not
// required: an edge piece cannot be a gutter, columnSplit checks that).
func intersect(a, b [][2]float64, minW float64) [][2]float64 {
	var out [][2]float64
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo, hi := max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
		if hi-lo >= minW {
			out = append(out, [2]float64{lo, hi})
		}
		if a[i][1] < b[j][1] {
			i++
		} else {
			j++
		}
	}
	return out
}

// leafLines builds the lines of a region read as one block: chunks
// grouped by baseline, top to bottom, each line left to right.
func leafLines(cs []*chunk) []textLine {
	sorted := append([]*chunk(nil), cs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].y > sorted[j].y })
	var groups [][]*chunk
	for _, c := range sorted {
		if n := len(groups); n > 0 {
			g := groups[n-1]
			top, bot := g[0].top(), g[0].bottom()
			for _, o := range g[1:] {
				top, bot = max(top, o.top()), min(bot, o.bottom())
			}
			overlap := min(top, c.top()) - max(bot, c.bottom())
			if overlap >= 0.5*min(top-bot, c.top()-c.bottom()) {
				groups[n-1] = append(g, c)
				continue
			}
		}
		groups = append(groups, []*chunk{c})
	}
	lines := make([]textLine, 0, len(groups))
	for _, g := range groups {
		sort.SliceStable(g, func(i, j int) bool { return g[i].x0 < g[j].x0 })
		var b strings.Builder
		var spans []span
		var prevX1, prevSize float64
		for ci, c := range g {
			for wi, w := range c.words {
				if b.Len() > 0 {
					gap := w.x0 - prevX1
					if wi > 0 || ci == 0 || gap > spaceGap*min(prevSize, c.size) {
						b.WriteByte(' ')
					}
				}
				start := b.Len()
				b.WriteString(w.text)
				if n := len(spans); n > 0 && wi > 0 {
					spans[n-1].end = b.Len()
					spans[n-1].box = spans[n-1].box.union(w.box)
				} else {
					spans = append(spans, span{start, b.Len(), w.box})
				}
				prevX1, prevSize = w.x1, c.size
			}
		}
		lines = append(lines, textLine{text: b.String(), spans: mergeSpans(spans)})
	}
	return lines
}

// mergeSpans makes one box per line when the line's chunks sit side by
// side on one baseline (the usual case), keeping separate boxes otherwise.
func mergeSpans(ss []span) []span {
	if len(ss) <= 1 {
		return ss
	}
	out := []span{ss[0]}
	for _, s := range ss[1:] {
		last := &out[len(out)-1]
		last.end = s.end
		last.box = last.box.union(s.box)
	}
	return out
}

// dehyphenate joins a word broken at the end of a line: when a line ends
// with a hyphen after a lowercase letter and the next line of the same
// block starts with a lowercase letter, the hyphen goes and the next
// line's first word moves up to end the line (with its own box).
func dehyphenate(lines []textLine) {
	for i := 0; i+1 < len(lines); i++ {
		a, b := &lines[i], &lines[i+1]
		if a.block != b.block || len(a.text) < 2 || len(b.text) == 0 || len(b.spans) == 0 {
			continue
		}
		last, size := utf8.DecodeLastRuneInString(a.text)
		if last != '-' && last != 0x00AD && last != 0x2010 {
			continue
		}
		prev, _ := utf8.DecodeLastRuneInString(a.text[:len(a.text)-size])
		next, _ := utf8.DecodeRuneInString(b.text)
		if !unicode.IsLower(prev) || !unicode.IsLower(next) {
			continue
		}
		cut := strings.IndexByte(b.text, ' ')
		if cut < 0 {
			cut = len(b.text)
		}
		frag := b.text[:cut]
		// The moved fragment keeps the box of the next line's first span
		// (its line box: finer geometry is not kept per word).
		a.text = a.text[:len(a.text)-size]
		for k := range a.spans {
			a.spans[k].end = min(a.spans[k].end, len(a.text))
		}
		start := len(a.text)
		a.text += frag
		a.spans = append(a.spans, span{start, len(a.text), b.spans[0].box})
		rest := strings.TrimLeft(b.text[cut:], " ")
		shift := len(b.text) - len(rest)
		b.text = rest
		var spans []span
		for _, s := range b.spans {
			s.start, s.end = max(0, s.start-shift), max(0, s.end-shift)
			if s.end > s.start {
				spans = append(spans, s)
			}
		}
		b.spans = spans
	}
}

// logicalOrder turns a right-to-left word (Hebrew, Arabic), drawn left to
// right in visual order, into the order it is read and searched in.
func logicalOrder(s string) string {
	rtl := false
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Hebrew, unicode.Arabic):
			rtl = true
		case unicode.IsMark(r):
		default:
			return s
		}
	}
	if !rtl {
		return s
	}
	rs := []rune(s)
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return string(rs)
}
