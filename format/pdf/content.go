package pdf

import (
	"errors"
	"fmt"
	"math"

	"github.com/retrieve-dev/retrieve/format"
)

// maxGlyphs bounds the glyphs one page may draw (a real dense page has a
// few thousand): past it the page is refused with ErrTooLarge, so that a
// hostile content stream cannot grow memory without end.
const maxGlyphs = 500_000

// maxOps bounds the operators one page may run, form XObjects included: a
// page whose forms draw each other many times over (a tree of forms, each
// drawing the next twice) is refused rather than run 2^depth times.
const maxOps = 20_000_000

type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m × n (apply m, then n).
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2],
		m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2],
		m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4],
		m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return x*m[0] + y*m[2] + m[4], x*m[1] + y*m[3] + m[5]
}

// glyph is one drawn character: its text and where it is, both in the
// page's user space (for boxes) and in an upright frame for layout (x grows
// along the text direction, y is the baseline, up).
type glyph struct {
	text     string
	x0, x1   float64 // upright frame: start and end along the line
	y        float64 // upright frame: baseline
	size     float64 // font size in user space units
	rot      int     // text direction 0..3 (quarter turns, display space)
	ux0, uy0 float64 // user-space box
	ux1, uy1 float64
}

type gstate struct {
	ctm                    matrix
	font                   *font
	fs, tc, tw, th, tl, ts float64
	// clip is the bounding box of the clipping path in user space (set
	// once the page clips: glyphs outside it are not seen, as in a viewer).
	clip    rect
	clipped bool
}

// page is what the interpreter collects from one page.
type pageGlyphs struct {
	glyphs []glyph
	images int
	ops    int
}

type interp struct {
	d *document
	// path is the bounding box of the current path (user space) and
	// clipNext says a W or W* waits for the path's end.
	path     rect
	hasPath  bool
	clipNext bool
	out      *pageGlyphs
	rotate   int // the page's /Rotate in quarter turns
	gs       gstate
	stack    []gstate
	tm, tlm  matrix
	forms    []objRef
	fonts    map[objRef]*font
	textLen  int64
}

func (in *interp) fontFor(res dict, n name) *font {
	fonts := in.d.dictOf(res["Font"])
	if fonts == nil {
		return nil
	}
	x := fonts[n]
	if r, ok := x.(objRef); ok {
		if f, ok := in.fonts[r]; ok {
			return f
		}
		fd := in.d.dictOf(r)
		if fd == nil {
			in.d.problem("font %s missing", n)
			in.fonts[r] = nil
			return nil
		}
		f := in.d.loadFont(fd)
		in.fonts[r] = f
		return f
	}
	if fd := in.d.dictOf(x); fd != nil {
		return in.d.loadFont(fd)
	}
	in.d.problem("font %s missing", n)
	return nil
}

// run interprets a content stream with its resources.
func (in *interp) run(data []byte, res dict, depth int) {
	l := &lexer{b: data, maxDepth: in.d.lim.MaxDepth, noRefs: true}
	ops := make([]any, 0, 16)
	for {
		tok, err := l.token()
		if err != nil {
			return
		}
		kw, isOp := tok.(keyword)
		if !isOp {
			if dl, ok := tok.(delim); ok && (dl == "[" || dl == "<<") {
				v, err := l.objectFrom(tok, 0)
				if err != nil {
					return
				}
				tok = v
			}
			if len(ops) < 64 {
				ops = append(ops, tok)
			}
			continue
		}
		in.out.ops++
		if in.out.ops > maxOps {
			fail(fmt.Errorf("%w: a page runs more than %d operators", format.ErrTooLarge, maxOps))
		}
		in.d.tick(1)
		in.op(string(kw), ops, res, depth, l)
		ops = ops[:0]
	}
}

func fnum(x any) float64 {
	switch v := x.(type) {
	case int64:
		return float64(v)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0
		}
		return v
	}
	return 0
}

func nums(ops []any, n int) ([]float64, bool) {
	if len(ops) < n {
		return nil, false
	}
	out := make([]float64, n)
	for i := 0; i < n; i++ {
		out[i] = fnum(ops[len(ops)-n+i])
	}
	return out, true
}

func (in *interp) op(kw string, ops []any, res dict, depth int, l *lexer) {
	gs := &in.gs
	switch kw {
	case "q":
		if len(in.stack) < 256 {
			in.stack = append(in.stack, in.gs)
		}
	case "Q":
		if n := len(in.stack); n > 0 {
			in.gs = in.stack[n-1]
			in.stack = in.stack[:n-1]
		}
	case "cm":
		if v, ok := nums(ops, 6); ok {
			gs.ctm = matrix{v[0], v[1], v[2], v[3], v[4], v[5]}.mul(gs.ctm)
		}
	case "BT":
		in.tm, in.tlm = identity, identity
	case "ET":
	case "Tf":
		if len(ops) >= 2 {
			if n, ok := ops[len(ops)-2].(name); ok {
				gs.font = in.fontFor(res, n)
			}
			gs.fs = fnum(ops[len(ops)-1])
		}
	case "Tc":
		if v, ok := nums(ops, 1); ok {
			gs.tc = v[0]
		}
	case "Tw":
		if v, ok := nums(ops, 1); ok {
			gs.tw = v[0]
		}
	case "Tz":
		if v, ok := nums(ops, 1); ok {
			gs.th = v[0] / 100
		}
	case "TL":
		if v, ok := nums(ops, 1); ok {
			gs.tl = v[0]
		}
	case "Ts":
		if v, ok := nums(ops, 1); ok {
			gs.ts = v[0]
		}
	case "Td":
		if v, ok := nums(ops, 2); ok {
			in.tlm = matrix{1, 0, 0, 1, v[0], v[1]}.mul(in.tlm)
			in.tm = in.tlm
		}
	case "TD":
		if v, ok := nums(ops, 2); ok {
			gs.tl = -v[1]
			in.tlm = matrix{1, 0, 0, 1, v[0], v[1]}.mul(in.tlm)
			in.tm = in.tlm
		}
	case "Tm":
		if v, ok := nums(ops, 6); ok {
			in.tlm = matrix{v[0], v[1], v[2], v[3], v[4], v[5]}
			in.tm = in.tlm
		}
	case "T*":
		in.nextLine()
	case "Tj":
		if len(ops) >= 1 {
			if s, ok := ops[len(ops)-1].(string); ok {
				in.show(s)
			}
		}
	case "'":
		in.nextLine()
		if len(ops) >= 1 {
			if s, ok := ops[len(ops)-1].(string); ok {
				in.show(s)
			}
		}
	case "\"":
		if len(ops) >= 3 {
			gs.tw = fnum(ops[len(ops)-3])
			gs.tc = fnum(ops[len(ops)-2])
			in.nextLine()
			if s, ok := ops[len(ops)-1].(string); ok {
				in.show(s)
			}
		}
	case "TJ":
		if len(ops) >= 1 {
			if a, ok := ops[len(ops)-1].(array); ok {
				for _, x := range a {
					switch v := x.(type) {
					case string:
						in.show(v)
					case int64, float64:
						adj := fnum(v)
						in.tm = matrix{1, 0, 0, 1, -adj / 1000 * gs.fs * gs.th, 0}.mul(in.tm)
					}
				}
			}
		}
	case "Do":
		if len(ops) >= 1 {
			if n, ok := ops[len(ops)-1].(name); ok {
				in.xobject(res, n, depth)
			}
		}
	case "BI":
		in.skipInlineImage(l)
	case "m", "l":
		if v, ok := nums(ops, 2); ok {
			in.addPoint(v[0], v[1])
		}
	case "c":
		if v, ok := nums(ops, 6); ok {
			in.addPoint(v[0], v[1])
			in.addPoint(v[2], v[3])
			in.addPoint(v[4], v[5])
		}
	case "v", "y":
		if v, ok := nums(ops, 4); ok {
			in.addPoint(v[0], v[1])
			in.addPoint(v[2], v[3])
		}
	case "re":
		if v, ok := nums(ops, 4); ok {
			in.addPoint(v[0], v[1])
			in.addPoint(v[0]+v[2], v[1]+v[3])
			in.addPoint(v[0]+v[2], v[1])
			in.addPoint(v[0], v[1]+v[3])
		}
	case "W", "W*":
		in.clipNext = true
	case "n", "S", "s", "f", "F", "f*", "B", "B*", "b", "b*":
		if in.clipNext && in.hasPath {
			if gs.clipped {
				c := gs.clip
				gs.clip = rect{max(c.x0, in.path.x0), max(c.y0, in.path.y0), min(c.x1, in.path.x1), min(c.y1, in.path.y1)}
			} else {
				gs.clip, gs.clipped = in.path, true
			}
		}
		in.clipNext, in.hasPath = false, false
	}
}

func (in *interp) addPoint(x, y float64) {
	x, y = in.gs.ctm.apply(x, y)
	if !in.hasPath {
		in.path, in.hasPath = rect{x, y, x, y}, true
		return
	}
	in.path = in.path.union(rect{x, y, x, y})
}

func (in *interp) nextLine() {
	in.tlm = matrix{1, 0, 0, 1, 0, -in.gs.tl}.mul(in.tlm)
	in.tm = in.tlm
}

func (in *interp) skipInlineImage(l *lexer) {
	in.out.images++
	// Dictionary entries up to ID, then binary data up to EI.
	for {
		tok, err := l.token()
		if err != nil {
			return
		}
		if tok == keyword("ID") {
			break
		}
	}
	l.pos++
	for l.pos+2 <= len(l.b) {
		if l.b[l.pos] == 'E' && l.b[l.pos+1] == 'I' && (l.pos == 0 || isSpace(l.b[l.pos-1])) &&
			(l.pos+2 == len(l.b) || isSpace(l.b[l.pos+2])) {
			l.pos += 2
			return
		}
		l.pos++
	}
	l.pos = len(l.b)
}

func (in *interp) xobject(res dict, n name, depth int) {
	xs := in.d.dictOf(res["XObject"])
	if xs == nil {
		return
	}
	x := xs[n]
	s, ok := in.d.resolve(x).(stream)
	if !ok {
		return
	}
	switch in.d.nameOf(s.hdr["Subtype"]) {
	case "Image":
		in.out.images++
		return
	case "Form":
	default:
		return
	}
	r, isRef := x.(objRef)
	if isRef {
		for _, f := range in.forms {
			if f == r {
				in.d.problem("form XObject %d draws itself", r.num)
				return
			}
		}
	}
	if depth+1 > min(in.d.lim.MaxDepth, 32) {
		fail(fmt.Errorf("%w: form XObjects nest deeper than %d", format.ErrTooLarge, min(in.d.lim.MaxDepth, 32)))
	}
	data, err := in.d.decode(s)
	if err != nil {
		if !errors.Is(err, errImageFilter) {
			in.d.problem("form XObject: %v", err)
		}
		return
	}
	fres := in.d.dictOf(s.hdr["Resources"])
	if fres == nil {
		fres = res
	}
	saved, savedStack, tm, tlm := in.gs, len(in.stack), in.tm, in.tlm
	if m := in.d.arrayOf(s.hdr["Matrix"]); len(m) == 6 {
		var v matrix
		for i := range v {
			v[i], _ = in.d.num(m[i])
		}
		in.gs.ctm = v.mul(in.gs.ctm)
	}
	if isRef {
		in.forms = append(in.forms, r)
	}
	in.run(data, fres, depth+1)
	if isRef {
		in.forms = in.forms[:len(in.forms)-1]
	}
	in.gs, in.tm, in.tlm = saved, tm, tlm
	if len(in.stack) > savedStack {
		in.stack = in.stack[:savedStack]
	}
}

// show draws a string with the current font.
func (in *interp) show(s string) {
	gs := &in.gs
	f := gs.font
	if f == nil {
		return
	}
	f.each(s, func(code uint32, n int, text string, w float64) {
		tx := w*gs.fs + gs.tc
		if n == 1 && code == 32 {
			tx += gs.tw
		}
		tx *= gs.th
		if text != "" {
			in.emit(text, w*gs.fs*gs.th)
		} else {
			in.d.unmapped++
		}
		in.tm = matrix{1, 0, 0, 1, tx, 0}.mul(in.tm)
	})
}

func (in *interp) emit(text string, adv float64) {
	gs := &in.gs
	m := in.tm.mul(gs.ctm)
	x0, y0 := m.apply(0, gs.ts)
	x1, y1 := m.apply(adv, gs.ts)
	hx, hy := m.apply(0, gs.ts+gs.fs)
	hx, hy = hx-x0, hy-y0
	size := math.Hypot(hx, hy)
	if size < 0.1 || size > 2000 || math.IsNaN(size) {
		return
	}
	// User-space box of the glyph quad, descent 0.2 and ascent 0.8 em.
	cx := [4]float64{x0 - 0.2*hx, x1 - 0.2*hx, x0 + 0.8*hx, x1 + 0.8*hx}
	cy := [4]float64{y0 - 0.2*hy, y1 - 0.2*hy, y0 + 0.8*hy, y1 + 0.8*hy}
	if gs.clipped {
		// A glyph that sticks out of the clip (by more than a tenth of an
		// em: its side bearings) is cut in a viewer: it is not taken.
		c, tol := gs.clip, 0.1*size
		for _, p := range [2][2]float64{{x0 + 0.3*hx, y0 + 0.3*hy}, {x1 + 0.3*hx, y1 + 0.3*hy}} {
			if p[0] < c.x0-tol || p[0] > c.x1+tol || p[1] < c.y0-tol || p[1] > c.y1+tol {
				return
			}
		}
	}
	g := glyph{text: text, size: size, ux0: cx[0], ux1: cx[0], uy0: cy[0], uy1: cy[0]}
	for i := 1; i < 4; i++ {
		g.ux0, g.ux1 = min(g.ux0, cx[i]), max(g.ux1, cx[i])
		g.uy0, g.uy1 = min(g.uy0, cy[i]), max(g.uy1, cy[i])
	}
	// Display space: undo the page's rotation; then classify the text
	// direction by the up vector and turn the glyph upright.
	dx0, dy0 := rot(x0, y0, in.rotate)
	dx1, dy1 := rot(x1, y1, in.rotate)
	ux, uy := rot(hx, hy, in.rotate)
	r := 0
	switch {
	case math.Abs(uy) >= math.Abs(ux) && uy >= 0:
		r = 0
	case math.Abs(ux) > math.Abs(uy) && ux < 0:
		r = 1
	case math.Abs(uy) >= math.Abs(ux):
		r = 2
	default:
		r = 3
	}
	ax0, ay0 := rot(dx0, dy0, r)
	ax1, _ := rot(dx1, dy1, r)
	if ax1 < ax0 {
		ax0, ax1 = ax1, ax0
	}
	g.x0, g.x1, g.y, g.rot = ax0, ax1, ay0, r
	if len(in.out.glyphs) >= maxGlyphs {
		fail(fmt.Errorf("%w: a page draws more than %d glyphs", format.ErrTooLarge, maxGlyphs))
	}
	in.textLen += int64(len(text))
	in.out.glyphs = append(in.out.glyphs, g)
}

// rot turns a point by q quarter turns clockwise (display space from user
// space for a page /Rotate of q×90).
func rot(x, y float64, q int) (float64, float64) {
	switch q & 3 {
	case 1:
		return y, -x
	case 2:
		return -x, -y
	case 3:
		return -y, x
	}
	return x, y
}
