package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/retrieve-dev/retrieve/format"
)

// abort carries an error that ends the whole extraction (a limit, a
// cancelled context) up through the parser; Extract recovers it. Ordinary
// damage (an object that does not parse) is not an abort: readers skip it,
// as PDF readers do.
type abort struct{ err error }

func fail(err error) { panic(abort{err}) }

type xrefEntry struct {
	off  int64 // offset in the file, or index in the object stream
	gen  int
	stm  int  // the object stream holding it (kind 2)
	kind byte // 1: in the file, 2: in an object stream
}

// document is an open PDF: its cross-reference table and a cache of the
// objects read so far (dictionaries only: page contents are decoded per
// page and dropped).
type document struct {
	ctx     context.Context
	r       io.ReaderAt
	size    int64
	lim     format.Limits
	xref    map[int]xrefEntry
	trailer dict
	version string
	shift   int64 // bytes of junk before %PDF-

	cache    map[int]any
	stmCache map[int]*objStream
	loading  map[int]bool
	repaired bool
	problems []string
	ops      int // work counter, for ctx checks
	// unmapped counts the glyphs drawn whose font gives no Unicode text
	// (a CID font without ToUnicode, non-standard glyph names).
	unmapped int
	// scanBudget bounds the bytes read again and again to parse objects
	// and find stream ends in a damaged file (a window that grows over an
	// unterminated object, a search for endstream): past it the file is
	// ErrMalformed rather than minutes of work.
	scanBudget int64
	// glyphBuf is reused from page to page: one page's glyphs are held
	// at a time.
	glyphBuf []glyph
	readBuf  []byte
}

type objStream struct {
	data  []byte
	first int
	offs  []int // offsets of the objects, by index
}

func (d *document) problem(format string, args ...any) {
	if len(d.problems) < 16 {
		d.problems = append(d.problems, fmt.Sprintf(format, args...))
	}
}

// tick counts work and checks the context every so often.
func (d *document) tick(n int) {
	d.ops += n
	if d.ops >= 1<<14 {
		d.ops = 0
		if err := d.ctx.Err(); err != nil {
			fail(err)
		}
	}
}

// scan spends n bytes of the scan budget.
func (d *document) scan(n int) {
	d.tick(n >> 6)
	d.scanBudget -= int64(n)
	if d.scanBudget < 0 {
		fail(fmt.Errorf("%w: the file is too damaged to read (its objects had to be re-read past %d bytes)", format.ErrMalformed, 16*d.size+64<<20))
	}
}

func (d *document) readAt(off int64, n int) []byte {
	if off < 0 || off >= d.size {
		return nil
	}
	if int64(n) > d.size-off {
		n = int(d.size - off)
	}
	b := make([]byte, n)
	m, err := d.r.ReadAt(b, off)
	if err != nil && err != io.EOF && m < n {
		fail(fmt.Errorf("%w: read at %d: %v", format.ErrMalformed, off, err))
	}
	return b[:m]
}

// open reads the header and the cross-reference sections, repairing the
// table by a scan of the file when it is broken.
func open(ctx context.Context, r io.ReaderAt, size int64, lim format.Limits) (*document, error) {
	d := &document{ctx: ctx, r: r, size: size, lim: lim, xref: map[int]xrefEntry{}, scanBudget: 16*size + 64<<20,
		cache: map[int]any{}, stmCache: map[int]*objStream{}, loading: map[int]bool{}}
	head := d.readAt(0, 1024)
	i := bytes.Index(head, []byte("%PDF-"))
	if i < 0 {
		return nil, fmt.Errorf("%w: no %%PDF- header", format.ErrMalformed)
	}
	d.shift = int64(i)
	v := head[i+5:]
	j := 0
	for j < len(v) && j < 4 && (v[j] == '.' || v[j] >= '0' && v[j] <= '9') {
		j++
	}
	d.version = string(v[:j])
	if err := d.readXref(); err != nil {
		d.problem("cross-reference table: %v", err)
		if err := d.repair(); err != nil {
			return nil, err
		}
	}
	if _, ok := d.trailer["Root"]; !ok {
		if err := d.repair(); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func (d *document) readXref() error {
	tail := d.readAt(max(0, d.size-2048), 2048)
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return errors.New("no startxref")
	}
	l := &lexer{b: tail[i+9:], maxDepth: d.lim.MaxDepth}
	tok, _ := l.token()
	off, ok := tok.(int64)
	if !ok {
		return errors.New("startxref is not a number")
	}
	seen := map[int64]bool{}
	first := true
	for off != 0 || first {
		if seen[off] {
			break // a Prev loop: what was read so far stands
		}
		if len(seen) > 256 {
			return errors.New("too many cross-reference sections")
		}
		seen[off] = true
		trailer, err := d.readXrefSection(off + d.shift)
		if err != nil && d.shift != 0 {
			trailer, err = d.readXrefSection(off)
		}
		if err != nil {
			return err
		}
		if first {
			d.trailer = trailer
			first = false
		}
		// A hybrid file's table trailer points to an xref stream too.
		if x, ok := trailer["XRefStm"].(int64); ok && !seen[x] {
			seen[x] = true
			if _, err := d.readXrefSection(x + d.shift); err != nil {
				d.problem("XRefStm: %v", err)
			}
		}
		prev, ok := trailer["Prev"].(int64)
		if !ok {
			break
		}
		off = prev
	}
	return nil
}

// readXrefSection reads one table or stream at off; entries already known
// (from a later section) win.
func (d *document) readXrefSection(off int64) (dict, error) {
	buf := d.readAt(off, 64)
	l := &lexer{b: buf, maxDepth: d.lim.MaxDepth}
	tok, err := l.token()
	if err != nil {
		return nil, fmt.Errorf("no cross-reference section at %d", off)
	}
	if tok == keyword("xref") {
		return d.readXrefTable(off)
	}
	if _, ok := tok.(int64); !ok {
		return nil, fmt.Errorf("no cross-reference section at %d", off)
	}
	obj, err := d.parseAt(off, -1)
	if err != nil {
		return nil, err
	}
	s, ok := obj.(stream)
	if !ok || s.hdr["Type"] != name("XRef") {
		return nil, fmt.Errorf("no xref stream at %d", off)
	}
	data, err := d.decode(s)
	if err != nil {
		return nil, err
	}
	w, _ := s.hdr["W"].(array)
	if len(w) < 3 {
		return nil, errors.New("xref stream without W")
	}
	var ws [3]int
	total := 0
	for k := 0; k < 3; k++ {
		n, _ := w[k].(int64)
		if n < 0 || n > 8 {
			return nil, errors.New("bad W in xref stream")
		}
		ws[k] = int(n)
		total += int(n)
	}
	if total == 0 {
		return nil, errors.New("bad W in xref stream")
	}
	size, _ := s.hdr["Size"].(int64)
	index, _ := s.hdr["Index"].(array)
	if index == nil {
		index = array{int64(0), size}
	}
	p := 0
	for k := 0; k+1 < len(index); k += 2 {
		start, _ := index[k].(int64)
		n, _ := index[k+1].(int64)
		for j := int64(0); j < n; j++ {
			if p+total > len(data) {
				return s.hdr, nil
			}
			f := [3]int64{1, 0, 0}
			q := p
			for c := 0; c < 3; c++ {
				if ws[c] == 0 {
					continue
				}
				var v int64
				for b := 0; b < ws[c]; b++ {
					v = v<<8 | int64(data[q])
					q++
				}
				f[c] = v
			}
			p += total
			num := int(start + j)
			if num < 0 || len(d.xref) > 8<<20 {
				continue
			}
			if _, known := d.xref[num]; known {
				continue
			}
			switch f[0] {
			case 0:
				d.xref[num] = xrefEntry{}
			case 1:
				d.xref[num] = xrefEntry{off: f[1], gen: int(f[2]), kind: 1}
			case 2:
				d.xref[num] = xrefEntry{stm: int(f[1]), off: f[2], kind: 2}
			}
		}
	}
	return s.hdr, nil
}

func (d *document) readXrefTable(off int64) (dict, error) {
	// Read the table line by line: entries are 20 bytes, a subsection
	// header gives the count.
	pos := off
	chunk := d.readAt(pos, 1<<16)
	l := &lexer{b: chunk, maxDepth: d.lim.MaxDepth}
	l.token() // xref
	for {
		if l.pos+64 > len(l.b) && int64(len(l.b)) < d.size-pos {
			pos += int64(l.pos)
			chunk = d.readAt(pos, 1<<16)
			l = &lexer{b: chunk, maxDepth: d.lim.MaxDepth}
		}
		save := l.pos
		tok, err := l.token()
		if err != nil {
			return nil, errors.New("xref table without trailer")
		}
		if tok == keyword("trailer") {
			l.pos = save
			break
		}
		start, ok1 := tok.(int64)
		t2, _ := l.token()
		n, ok2 := t2.(int64)
		if !ok1 || !ok2 || n < 0 || start < 0 {
			return nil, errors.New("malformed xref table")
		}
		for j := int64(0); j < n; j++ {
			if l.pos+64 > len(l.b) && int64(len(l.b)) < d.size-pos {
				pos += int64(l.pos)
				chunk = d.readAt(pos, 1<<16)
				l = &lexer{b: chunk, maxDepth: d.lim.MaxDepth}
			}
			a, _ := l.token()
			b, _ := l.token()
			c, _ := l.token()
			o, ok1 := a.(int64)
			g, ok2 := b.(int64)
			kw, ok3 := c.(keyword)
			if !ok1 || !ok2 || !ok3 {
				return nil, errors.New("malformed xref entry")
			}
			d.tick(1)
			num := int(start + j)
			if len(d.xref) > 8<<20 {
				return nil, errors.New("xref table too large")
			}
			if _, known := d.xref[num]; known {
				continue
			}
			if kw == "n" {
				d.xref[num] = xrefEntry{off: o, gen: int(g), kind: 1}
			} else {
				d.xref[num] = xrefEntry{}
			}
		}
	}
	pos += int64(l.pos)
	tr, err := d.parseTrailerAt(pos)
	if err != nil {
		return nil, err
	}
	return tr, nil
}

func (d *document) parseTrailerAt(pos int64) (dict, error) {
	for n := 4096; ; n *= 4 {
		buf := d.readAt(pos, n)
		l := &lexer{b: buf, maxDepth: d.lim.MaxDepth}
		tok, err := l.token()
		if err != nil || tok != keyword("trailer") {
			return nil, errors.New("no trailer after xref table")
		}
		obj, err := l.object(0)
		if err == errShort && len(buf) == n {
			continue
		}
		t, ok := obj.(dict)
		if err != nil || !ok {
			return nil, errors.New("bad trailer")
		}
		return t, nil
	}
}

// repair rebuilds the cross-reference table by scanning the file for
// "n g obj" headers, as PDF readers do with a damaged file.
func (d *document) repair() error {
	if d.repaired {
		return fmt.Errorf("%w: cross-reference table unusable", format.ErrMalformed)
	}
	d.repaired = true
	d.xref = map[int]xrefEntry{}
	d.cache = map[int]any{}
	d.stmCache = map[int]*objStream{}
	var trailer dict
	const chunk = 1 << 20
	for base := int64(0); base < d.size; base += chunk {
		buf := d.readAt(base, chunk+64)
		d.tick(len(buf) >> 6)
		for i := 0; i < len(buf) && i < chunk; i++ {
			if buf[i] == 't' && bytes.HasPrefix(buf[i:], []byte("trailer")) {
				if t, err := d.parseTrailerAt(base + int64(i)); err == nil {
					if trailer == nil {
						trailer = dict{}
					}
					for k, v := range t {
						trailer[k] = v
					}
				}
				continue
			}
			if buf[i] != 'o' || !bytes.HasPrefix(buf[i:], []byte("obj")) || i == 0 || !isSpace(buf[i-1]) {
				continue
			}
			num, gen, ns, ok := objHeaderBefore(buf, i)
			if !ok || len(d.xref) > 8<<20 {
				continue
			}
			d.xref[num] = xrefEntry{off: base + int64(ns), gen: gen, kind: 1}
		}
	}
	if trailer == nil || trailer["Root"] == nil {
		// An xref-stream file has no trailer keyword: find the catalog
		// (and any xref stream's trailer entries) among the objects.
		if trailer == nil {
			trailer = dict{}
		}
		d.trailerFromObjects(trailer)
	}
	if trailer["Root"] == nil {
		return fmt.Errorf("%w: no document catalog", format.ErrMalformed)
	}
	d.trailer = trailer
	return nil
}

// objHeaderBefore reads, backwards from the "obj" keyword at buf[i], the
// "num gen " of an object header: the object number, generation and the
// header's start in buf, and whether both numbers are there.
func objHeaderBefore(buf []byte, i int) (num, gen, ns int, ok bool) {
	j := i - 1
	for j >= 0 && isSpace(buf[j]) {
		j--
	}
	ge := j + 1
	for j >= 0 && buf[j] >= '0' && buf[j] <= '9' {
		j--
	}
	gs := j + 1
	for j >= 0 && isSpace(buf[j]) {
		j--
	}
	ne := j + 1
	for j >= 0 && buf[j] >= '0' && buf[j] <= '9' {
		j--
	}
	ns = j + 1
	if gs == ge || ns == ne || ne == gs {
		return 0, 0, 0, false
	}
	num, err1 := strconv.Atoi(string(buf[ns:ne]))
	gen, err2 := strconv.Atoi(string(buf[gs:ge]))
	if err1 != nil || err2 != nil {
		return 0, 0, 0, false
	}
	return num, gen, ns, true
}

// trailerFromObjects fills in trailer, for a file whose trailer keyword
// is missing or names no catalog (an xref-stream file), from the objects
// repair found: an xref stream's Root, Info and Encrypt, else the first
// Catalog met; object streams met on the way are indexed.
func (d *document) trailerFromObjects(trailer dict) {
	for num, e := range d.xref {
		obj, err := d.parseAt(e.off, num)
		if err != nil {
			continue
		}
		if s, ok := obj.(stream); ok && s.hdr["Type"] == name("XRef") {
			for k, v := range s.hdr {
				if _, ok := trailer[k]; !ok && (k == "Root" || k == "Info" || k == "Encrypt") {
					trailer[k] = v
				}
			}
			continue
		}
		if s, ok := obj.(stream); ok && s.hdr["Type"] == name("ObjStm") {
			d.indexObjStream(num)
			continue
		}
		if dd, ok := obj.(dict); ok && dd["Type"] == name("Catalog") && trailer["Root"] == nil {
			trailer["Root"] = objRef{num, e.gen}
		}
	}
}

// indexObjStream adds the objects of an object stream to the table while
// repairing (entries found in the file itself win).
func (d *document) indexObjStream(num int) {
	os, err := d.objStream(num)
	if err != nil {
		return
	}
	l := &lexer{b: os.data, maxDepth: d.lim.MaxDepth}
	for i := range os.offs {
		t, _ := l.token()
		n, ok := t.(int64)
		l.token()
		if !ok {
			return
		}
		if _, known := d.xref[int(n)]; !known {
			d.xref[int(n)] = xrefEntry{stm: num, off: int64(i), kind: 2}
		}
	}
}

// parseAt parses the indirect object at off. want is the expected object
// number (-1: any).
func (d *document) parseAt(off int64, want int) (any, error) {
	if off < 0 || off >= d.size {
		return nil, fmt.Errorf("object offset %d outside the file", off)
	}
	for n := 2048; ; n *= 4 {
		buf := d.readAt(off, n)
		d.tick(len(buf) >> 6)
		l := &lexer{b: buf, base: off, maxDepth: d.lim.MaxDepth}
		// The budget is charged what was lexed: all of a window that
		// proved too short, the object's own bytes otherwise.
		charged := false
		charge := func(short bool) {
			if !charged {
				charged = true
				if short {
					d.scan(len(buf))
				} else {
					d.scan(l.pos)
				}
			}
		}
		t1, _ := l.token()
		t2, _ := l.token()
		t3, err := l.token()
		num, ok1 := t1.(int64)
		_, ok2 := t2.(int64)
		if err != nil || !ok1 || !ok2 || t3 != keyword("obj") {
			return nil, fmt.Errorf("no object at offset %d", off)
		}
		if want >= 0 && int(num) != want {
			return nil, fmt.Errorf("object %d expected at offset %d, found %d", want, off, num)
		}
		obj, err := l.object(0)
		if err == errShort && len(buf) == n && int64(n) < d.size {
			charge(true)
			if int64(n) > d.lim.MaxInput {
				fail(fmt.Errorf("%w: an object larger than the input limit", format.ErrTooLarge))
			}
			continue
		}
		if err != nil || !isDictObj(obj) {
			charge(false)
		}
		if err == errDepth {
			return nil, fmt.Errorf("%w: object %d nests deeper than %d", format.ErrTooLarge, num, d.lim.MaxDepth)
		}
		if err != nil {
			return nil, fmt.Errorf("object %d: %v", num, err)
		}
		hdr, isDict := obj.(dict)
		if !isDict {
			return obj, nil
		}
		save := l.pos
		tok, err := l.token()
		if err == errShort && len(buf) == n && int64(n) < d.size-off {
			charge(true)
			continue
		}
		charge(false)
		if err == nil && tok == keyword("stream") {
			p := l.pos
			if p < len(buf) && buf[p] == '\r' {
				p++
			}
			if p < len(buf) && buf[p] == '\n' {
				p++
			}
			return stream{hdr: hdr, off: off + int64(p)}, nil
		}
		l.pos = save
		return hdr, nil
	}
}

func isDictObj(x any) bool {
	_, ok := x.(dict)
	return ok
}

// resolve follows indirect references. An object that cannot be read is
// nil (and noted), as readers treat it.
func (d *document) resolve(x any) any {
	for hops := 0; ; hops++ {
		r, ok := x.(objRef)
		if !ok {
			return x
		}
		if hops > d.lim.MaxDepth {
			d.problem("reference chain longer than %d", d.lim.MaxDepth)
			return nil
		}
		x = d.load(r)
	}
}

func (d *document) load(r objRef) any {
	if v, ok := d.cache[r.num]; ok {
		return v
	}
	if d.loading[r.num] {
		d.problem("object %d refers to itself", r.num)
		return nil
	}
	d.loading[r.num] = true
	defer delete(d.loading, r.num)
	d.tick(16)
	e, ok := d.xref[r.num]
	var v any
	var err error
	switch {
	case !ok || e.kind == 0:
		v = nil
	case e.kind == 1:
		v, err = d.parseAt(e.off+d.shift, r.num)
		if err != nil && d.shift != 0 {
			v, err = d.parseAt(e.off, r.num)
		}
		if err != nil && !d.repaired && !errors.Is(err, format.ErrTooLarge) {
			// The table points to the wrong place: rebuild it once.
			d.problem("%v", err)
			if rerr := d.repair(); rerr == nil {
				delete(d.loading, r.num)
				return d.load(r)
			}
		}
	case e.kind == 2:
		v, err = d.fromObjStream(e.stm, int(e.off), r.num)
	}
	if err != nil {
		if errors.Is(err, format.ErrTooLarge) {
			fail(err)
		}
		d.problem("%v", err)
		v = nil
	}
	if _, isStream := v.(stream); !isStream || len(d.cache) < 1<<16 {
		d.cache[r.num] = v
	}
	return v
}

func (d *document) objStream(num int) (*objStream, error) {
	if os, ok := d.stmCache[num]; ok {
		return os, nil
	}
	if d.loading[-num-1] {
		return nil, fmt.Errorf("object stream %d contains itself", num)
	}
	d.loading[-num-1] = true
	defer delete(d.loading, -num-1)
	s, ok := d.load(objRef{num, 0}).(stream)
	if !ok {
		return nil, fmt.Errorf("object stream %d missing", num)
	}
	data, err := d.decode(s)
	if err != nil {
		return nil, err
	}
	n, _ := d.resolve(s.hdr["N"]).(int64)
	first, _ := d.resolve(s.hdr["First"]).(int64)
	if n < 0 || first < 0 || first > int64(len(data)) || n > int64(len(data)) {
		return nil, fmt.Errorf("object stream %d: bad N or First", num)
	}
	os := &objStream{data: data, first: int(first)}
	l := &lexer{b: data[:first], maxDepth: d.lim.MaxDepth}
	for i := int64(0); i < n; i++ {
		l.token()
		t, _ := l.token()
		o, _ := t.(int64)
		os.offs = append(os.offs, int(o))
	}
	if len(d.stmCache) >= 8 {
		clear(d.stmCache)
	}
	d.stmCache[num] = os
	return os, nil
}

func (d *document) fromObjStream(stm, idx, num int) (any, error) {
	os, err := d.objStream(stm)
	if err != nil {
		return nil, err
	}
	if idx < 0 || idx >= len(os.offs) {
		return nil, fmt.Errorf("object %d: index %d outside object stream %d", num, idx, stm)
	}
	p := os.first + os.offs[idx]
	if p < 0 || p > len(os.data) {
		return nil, fmt.Errorf("object %d: offset outside object stream %d", num, stm)
	}
	l := &lexer{b: os.data[p:], maxDepth: d.lim.MaxDepth}
	v, err := l.object(0)
	if err == errDepth {
		return nil, fmt.Errorf("%w: object %d nests deeper than %d", format.ErrTooLarge, num, d.lim.MaxDepth)
	}
	if err != nil && err != errShort {
		return nil, fmt.Errorf("object %d: %v", num, err)
	}
	return v, nil
}

// Typed accessors: each resolves references and gives the zero value when
// the object is missing or of another type.

func (d *document) dictOf(x any) dict {
	switch v := d.resolve(x).(type) {
	case dict:
		return v
	case stream:
		return v.hdr
	}
	return nil
}

func (d *document) arrayOf(x any) array {
	a, _ := d.resolve(x).(array)
	return a
}

func (d *document) num(x any) (float64, bool) {
	switch v := d.resolve(x).(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

func (d *document) intOf(x any) int64 {
	switch v := d.resolve(x).(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	}
	return 0
}

func (d *document) nameOf(x any) name {
	n, _ := d.resolve(x).(name)
	return n
}

func (d *document) strOf(x any) (string, bool) {
	s, ok := d.resolve(x).(string)
	return s, ok
}
