// Package zipdoc reads the zip containers of office files and e-books (OOXML,
// OpenDocument, EPUB) as untrusted input: every member's inflated size and
// the total inflated by one extraction are capped (zip bombs), the number of
// members is capped, member names are looked up only inside the archive (a
// relationship target that climbs out of it is refused), XML is read with a
// depth limit and without external entities, and the context is checked
// while inflating.
package zipdoc

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"golang.org/x/text/encoding/unicode"

	"github.com/retrieve-dev/retrieve/format"
)

// MembersPerPart is how many zip members one part may bring: a slide is a
// slide, its relationships and its notes, with their relationships; a
// document of MaxParts parts may have MaxParts*MembersPerPart+MembersSlack
// members before it is refused.
const (
	MembersPerPart = 4
	MembersSlack   = 256
)

// Archive is an opened zip container.
type Archive struct {
	ctx    context.Context
	zr     *zip.Reader
	byName map[string]*zip.File
	lim    format.Limits
	// budget is what may still be inflated by this extraction.
	budget int64
}

var (
	zipMagic = []byte("PK\x03\x04")
	// cfbMagic starts an OLE compound file: a legacy .doc/.xls/.ppt or an
	// encrypted OOXML package (ECMA-376 part 2 §… wraps it in one).
	cfbMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
)

// Open opens the zip container r of size bytes within lim (already
// defaulted by the caller or not). An OLE compound file that holds an
// EncryptionInfo stream (a password-protected OOXML file) is ErrEncrypted;
// any other compound file (a legacy binary Office file) is ErrUnsupported;
// bytes that are not a zip are ErrMalformed.
func Open(ctx context.Context, r io.ReaderAt, size int64, lim format.Limits) (*Archive, error) {
	lim = lim.WithDefaults()
	if size > lim.MaxInput {
		return nil, fmt.Errorf("%w: %d bytes, the limit is %d", format.ErrTooLarge, size, lim.MaxInput)
	}
	head := make([]byte, 8)
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	if bytes.HasPrefix(head, cfbMagic) {
		enc, err := cfbEncrypted(ctx, r, size)
		if err != nil {
			return nil, err
		}
		if enc {
			return nil, fmt.Errorf("%w: an encrypted (password-protected) Office file", format.ErrEncrypted)
		}
		return nil, fmt.Errorf("%w: a legacy binary Office file (OLE compound file), not a zip package", format.ErrUnsupported)
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%w: not a zip archive: %v", format.ErrMalformed, err)
	}
	maxMembers := lim.MaxParts*MembersPerPart + MembersSlack
	if len(zr.File) > maxMembers {
		return nil, fmt.Errorf("%w: %d zip members, the limit is %d", format.ErrTooLarge, len(zr.File), maxMembers)
	}
	a := &Archive{ctx: ctx, zr: zr, byName: make(map[string]*zip.File, len(zr.File)), lim: lim, budget: lim.MaxInflated}
	for _, f := range zr.File {
		name := strings.TrimPrefix(f.Name, "/")
		if _, dup := a.byName[name]; dup {
			// Two members with one name: a reader and a checker could see
			// different documents; refuse rather than pick one.
			return nil, fmt.Errorf("%w: zip member %q twice", format.ErrMalformed, name)
		}
		a.byName[name] = f
	}
	return a, nil
}

// IsZip reports whether head starts like a zip archive.
func IsZip(head []byte) bool { return bytes.HasPrefix(head, zipMagic) }

// Limits returns the limits the archive was opened with, defaulted.
func (a *Archive) Limits() format.Limits { return a.lim }

// Has reports whether the archive has a member called name.
func (a *Archive) Has(name string) bool {
	_, ok := a.byName[name]
	return ok
}

// Names lists the members, in archive order.
func (a *Archive) Names() []string {
	out := make([]string, 0, len(a.zr.File))
	for _, f := range a.zr.File {
		out = append(out, strings.TrimPrefix(f.Name, "/"))
	}
	return out
}

// Open returns a reader of member name's inflated bytes: it fails with
// ErrTooLarge past the member's cap (the remaining budget) and with ctx's
// error when ctx is done. A missing member is ErrMalformed.
func (a *Archive) Open(name string) (io.ReadCloser, error) {
	f, ok := a.byName[name]
	if !ok {
		return nil, fmt.Errorf("%w: no member %q", format.ErrMalformed, name)
	}
	if err := a.ctx.Err(); err != nil {
		return nil, err
	}
	if f.UncompressedSize64 > uint64(a.budget) {
		return nil, fmt.Errorf("%w: member %q declares %d bytes inflated, the limit left is %d", format.ErrTooLarge, name, f.UncompressedSize64, a.budget)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: member %q: %v", format.ErrMalformed, name, err)
	}
	return &capped{a: a, name: name, rc: rc}, nil
}

// ReadAll returns member name's inflated bytes, within the caps of Open.
func (a *Archive) ReadAll(name string) ([]byte, error) {
	rc, err := a.Open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// capped counts what it inflates against the archive's budget.
type capped struct {
	a    *Archive
	name string
	rc   io.ReadCloser
}

// Read inflates into p, counting against the budget.
func (c *capped) Read(p []byte) (int, error) {
	if err := c.a.ctx.Err(); err != nil {
		return 0, err
	}
	// Ask for one byte more than the budget so that reaching it exactly is
	// not mistaken for going past it.
	if int64(len(p)) > c.a.budget+1 {
		p = p[:c.a.budget+1]
	}
	n, err := c.rc.Read(p)
	c.a.budget -= int64(n)
	if c.a.budget < 0 {
		return 0, fmt.Errorf("%w: member %q inflates past the limit of %d bytes", format.ErrTooLarge, c.name, c.a.lim.MaxInflated)
	}
	if err != nil && err != io.EOF {
		return n, fmt.Errorf("%w: member %q: %v", format.ErrMalformed, c.name, err)
	}
	return n, err
}

// Close closes the member's reader.
func (c *capped) Close() error { return c.rc.Close() }

// Resolve returns the member a relationship target names, relative to the
// directory of the part base ("" for the package root), or false when the
// target is external (a URL, TargetMode="External") or climbs out of the
// archive: such targets are never read.
func Resolve(base, target string) (string, bool) {
	if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "//") || strings.ContainsAny(target, "\\\x00") {
		return "", false
	}
	if i := strings.IndexAny(target, "#?"); i >= 0 {
		target = target[:i]
	}
	if strings.Contains(target, ":") {
		// mailto:, file:, C:… — not a member name.
		return "", false
	}
	var stack []string
	if !strings.HasPrefix(target, "/") {
		if dir := path.Dir(base); dir != "." && dir != "/" && base != "" {
			stack = strings.Split(strings.Trim(dir, "/"), "/")
		}
	}
	for _, seg := range strings.Split(target, "/") {
		switch seg {
		case "", ".":
		case "..":
			// Climbing above the root is refused, not clamped: a clamped
			// "../../x" would silently read another member than the one named.
			if len(stack) == 0 {
				return "", false
			}
			stack = stack[:len(stack)-1]
		default:
			stack = append(stack, seg)
		}
	}
	if len(stack) == 0 {
		return "", false
	}
	return strings.Join(stack, "/"), true
}

// cfbEncrypted reports whether an OLE compound file holds an
// "EncryptionInfo" stream: its directory entry names are UTF-16LE, looked
// for in the whole file (bounded by the caller's MaxInput) rather than by
// walking sector chains, which a hostile file could loop.
func cfbEncrypted(ctx context.Context, r io.ReaderAt, size int64) (bool, error) {
	needle := utf16le("EncryptionInfo")
	const chunk = 1 << 20
	buf := make([]byte, chunk+len(needle))
	for off := int64(0); off < size; off += chunk {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		n, err := r.ReadAt(buf, off)
		if n == 0 && err != nil {
			break
		}
		if bytes.Contains(buf[:n], needle) {
			return true, nil
		}
	}
	return false, nil
}

func utf16le(s string) []byte {
	out := make([]byte, 0, 2*len(s))
	for _, c := range []byte(s) {
		out = append(out, c, 0)
	}
	return out
}

// Decoder reads XML tokens with a depth limit, no external entities
// (encoding/xml never loads any) and UTF-16 as well as UTF-8.
type Decoder struct {
	d        *xml.Decoder
	depth    int
	maxDepth int
	ctx      context.Context
	n        int
}

// NewDecoder returns a Decoder of r that refuses nesting deeper than
// maxDepth with ErrTooLarge.
func NewDecoder(ctx context.Context, r io.Reader, maxDepth int) *Decoder {
	br := bufio.NewReader(r)
	// encoding/xml does not skip a byte order mark.
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		br.Discard(3)
	}
	var rd io.Reader = br
	if b, err := br.Peek(2); err == nil && (bytes.Equal(b, []byte{0xFF, 0xFE}) || bytes.Equal(b, []byte{0xFE, 0xFF})) {
		rd = unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewDecoder().Reader(br)
	}
	d := xml.NewDecoder(rd)
	d.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		switch strings.ToLower(label) {
		case "utf-8", "utf8", "us-ascii", "ascii":
			return in, nil
		case "utf-16", "utf-16le", "utf-16be":
			// Already decoded above when the file starts with a BOM.
			return in, nil
		}
		return nil, fmt.Errorf("unsupported XML encoding %q", label)
	}
	return &Decoder{d: d, maxDepth: maxDepth, ctx: ctx}
}

// Token returns the next token, or io.EOF at the end. Like encoding/xml's,
// a token's bytes are valid until the next call: callers copy what they
// keep (copying every token cost a fifth of a large sheet's time). Errors are ErrTooLarge (depth, or from the capped
// reader), ctx's error, or ErrMalformed.
func (d *Decoder) Token() (xml.Token, error) {
	d.n++
	if d.n&1023 == 0 {
		if err := d.ctx.Err(); err != nil {
			return nil, err
		}
	}
	t, err := d.d.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, Wrap(err)
	}
	switch t.(type) {
	case xml.StartElement:
		d.depth++
		if d.depth > d.maxDepth {
			return nil, fmt.Errorf("%w: XML nested deeper than %d", format.ErrTooLarge, d.maxDepth)
		}
	case xml.EndElement:
		d.depth--
	}
	return t, nil
}

// Lenient lets the decoder read the XML of the wild (package documents and
// navigation files of e-books): HTML entities, unknown namespaces prefixes.
func (d *Decoder) Lenient() {
	d.d.Strict = false
	d.d.Entity = xml.HTMLEntity
}

// Depth is the number of elements open after the last token.
func (d *Decoder) Depth() int { return d.depth }

// Skip skips to the end of the element just started.
func (d *Decoder) Skip() error {
	start := d.depth
	for d.depth >= start {
		if _, err := d.Token(); err != nil {
			if err == io.EOF {
				return fmt.Errorf("%w: unexpected end of XML", format.ErrMalformed)
			}
			return err
		}
	}
	return nil
}

// Children reads the tokens inside the element just started, up to its
// end element (not passed on), and calls fn with each; fn may read a child
// element whole (Skip, a nested reader). A document that ends first is
// ErrMalformed. The XML formats' readers walk an element's children
// through it.
func (d *Decoder) Children(fn func(xml.Token) error) error {
	start := d.depth
	for {
		t, err := d.Token()
		if err != nil {
			if err == io.EOF {
				return fmt.Errorf("%w: unexpected end of XML", format.ErrMalformed)
			}
			return err
		}
		if _, ok := t.(xml.EndElement); ok && d.depth < start {
			return nil
		}
		if err := fn(t); err != nil {
			return err
		}
	}
}

// Wrap keeps the sentinel of an error already carrying one (a cap, ctx)
// and marks any other as ErrMalformed.
func Wrap(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, format.ErrTooLarge), errors.Is(err, format.ErrMalformed),
		errors.Is(err, format.ErrEncrypted), errors.Is(err, format.ErrUnsupported),
		errors.Is(err, format.ErrNoPart), errors.Is(err, format.ErrNoText),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return fmt.Errorf("%w: %v", format.ErrMalformed, err)
}

// Attr returns the value of the attribute with local name local (any
// namespace) and whether it was there.
func Attr(s xml.StartElement, local string) (string, bool) {
	for _, a := range s.Attr {
		if a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

// AttrNS returns the value of the attribute local in namespace space.
func AttrNS(s xml.StartElement, space, local string) string {
	for _, a := range s.Attr {
		if a.Name.Local == local && a.Name.Space == space {
			return a.Value
		}
	}
	return ""
}

// Relationship is one entry of an OPC .rels part.
type Relationship struct {
	ID, Type, Target string
	// External is true for TargetMode="External": never read.
	External bool
}

// Rels reads the relationships of the part base (base "" for the package's
// own _rels/.rels); a part without relationships has none (no error).
func (a *Archive) Rels(base string) (map[string]Relationship, error) {
	name := "_rels/.rels"
	if base != "" {
		name = path.Join(path.Dir(base), "_rels", path.Base(base)+".rels")
	}
	out := map[string]Relationship{}
	if !a.Has(name) {
		return out, nil
	}
	rc, err := a.Open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	d := NewDecoder(a.ctx, rc, a.lim.MaxDepth)
	for {
		t, err := d.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		s, ok := t.(xml.StartElement)
		if !ok || s.Name.Local != "Relationship" {
			continue
		}
		id, _ := Attr(s, "Id")
		typ, _ := Attr(s, "Type")
		tgt, _ := Attr(s, "Target")
		mode, _ := Attr(s, "TargetMode")
		out[id] = Relationship{ID: id, Type: typ, Target: tgt, External: strings.EqualFold(mode, "External")}
	}
}

// Member returns the member a relationship of base points to, or false for
// an external target or one outside the archive.
func (a *Archive) Member(base string, r Relationship) (string, bool) {
	if r.External {
		return "", false
	}
	name, ok := Resolve(base, r.Target)
	if !ok || !a.Has(name) {
		return "", false
	}
	return name, true
}

// ByType returns the first relationship (in Id order) whose type ends with
// suffix ("/officeDocument"): types differ between the transitional and
// strict OOXML namespaces but not in their last segment.
func ByType(rels map[string]Relationship, suffix string) (Relationship, bool) {
	var best Relationship
	found := false
	for _, r := range rels {
		if strings.HasSuffix(r.Type, suffix) && (!found || r.ID < best.ID) {
			best, found = r, true
		}
	}
	return best, found
}

// HeadMembers lists the names of the members whose local file headers lie
// in head (the first bytes of a zip): how an OOXML type is told from the
// head when its first members are small.
func HeadMembers(head []byte) []string {
	var out []string
	off := 0
	for i := 0; i < 64 && off+30 <= len(head); i++ {
		if !bytes.Equal(head[off:off+4], zipMagic) {
			break
		}
		flags := int(head[off+6]) | int(head[off+7])<<8
		csize := int(uint32(head[off+18]) | uint32(head[off+19])<<8 | uint32(head[off+20])<<16 | uint32(head[off+21])<<24)
		nlen := int(head[off+26]) | int(head[off+27])<<8
		xlen := int(head[off+28]) | int(head[off+29])<<8
		if off+30+nlen > len(head) {
			break
		}
		out = append(out, string(head[off+30:off+30+nlen]))
		next := off + 30 + nlen + xlen
		if flags&0x8 != 0 {
			// The sizes follow the data (a streamed zip): look for the next
			// header's signature. Compressed bytes may hold one by chance;
			// a name read there is noise a sniffer's prefix test ignores.
			j := bytes.Index(head[next:], zipMagic)
			if j < 0 {
				break
			}
			off = next + j
			continue
		}
		off = next + csize
	}
	return out
}

// SniffMimetype reports whether head is a zip whose first member is an
// uncompressed "mimetype" holding exactly mt: the rule of OpenDocument and
// EPUB.
func SniffMimetype(head []byte, mt string) bool {
	if len(head) < 30 || !bytes.Equal(head[:4], zipMagic) {
		return false
	}
	method := int(head[8]) | int(head[9])<<8
	csize := int(uint32(head[18]) | uint32(head[19])<<8 | uint32(head[20])<<16 | uint32(head[21])<<24)
	nlen := int(head[26]) | int(head[27])<<8
	xlen := int(head[28]) | int(head[29])<<8
	if method != 0 || csize != len(mt) || 30+nlen > len(head) || string(head[30:30+nlen]) != "mimetype" {
		return false
	}
	start := 30 + nlen + xlen
	return start+len(mt) <= len(head) && string(head[start:start+len(mt)]) == mt
}
