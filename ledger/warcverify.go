package ledger

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/textproto"
	"strconv"
	"strings"
)

// WARCCheck is what Verify found of the bundle's web part (web.warc.gz):
// every record read, its block digest checked; each response or resource
// record's payload hashes to its WARC-Payload-Digest, which names a web
// snapshot of the bundle; its HTTP status and headers and its URL are the
// ones an entry citing that snapshot recorded; each web entry has one
// metadata record that names its retrieval, citation and hashes and refers
// to the record of its snapshot; and nothing else is there.
type WARCCheck struct {
	// Status: ok, none (no web entry and no web part) or failed.
	Status string `json:"status"`
	// Records read; Captures: response and resource records checked
	// against the snapshots.
	Records  int            `json:"records"`
	Captures int            `json:"captures"`
	Problems []*BundleError `json:"problems"`
}

// Caps on the web part beyond the bundle's own: a record's WARC or HTTP
// header, and the records per web entry (warcinfo aside: a request, a
// response or resource, a metadata record).
const (
	maxWARCHeader     = 64 << 10
	warcRecordsPerWeb = 3
)

// warcRecord is what the check keeps of one record.
type warcRecord struct {
	n        int
	typ, id  string
	hdr      textproto.MIMEHeader
	payload  string // sha256:<hex> of the payload (response, resource)
	httpHead *httpHead
	fields   map[string]string // a metadata record's warc-fields
}

type httpHead struct {
	status int
	hdr    textproto.MIMEHeader
}

func (r *warcRecord) name() string { return BundleWARC + "#" + r.id }

// verifyWARC checks the web part against the bundle's entries and
// snapshots (whose bytes Verify checks against their names).
func (b *Bundle) verifyWARC() WARCCheck {
	c := WARCCheck{Status: CheckNone, Problems: []*BundleError{}}
	web := map[string]webFacts{} // entry id → facts
	for _, be := range b.Manifest.Entries {
		if e := b.Entries[be.ID]; e != nil {
			if f, ok := webEntry(e); ok {
				web[be.ID] = f
			}
		}
	}
	f := b.fs[BundleWARC]
	switch {
	case f == nil && b.Manifest.WARC == "" && len(web) == 0:
		return c
	case f == nil && b.Manifest.WARC != "":
		c.fail(BundleMalformed, BundleWARC, "the manifest names the web part, the bundle does not have it")
		return c
	case f == nil:
		c.fail(BundleTampered, BundleWARC, "%d entries are web captures and the bundle has no web part: it was removed", len(web))
		return c
	case b.Manifest.WARC != BundleWARC:
		c.fail(BundleTampered, BundleWARC, "the bundle has a web part the manifest does not name")
		return c
	}
	c.Status = CheckOK
	recs, err := b.readWARC(f.Open, web)
	c.Records = len(recs)
	if err != nil {
		c.Problems = append(c.Problems, err)
	}
	b.matchWARC(&c, recs, web)
	if len(c.Problems) > 0 {
		c.Status = CheckFail
	}
	return c
}

func (c *WARCCheck) fail(kind, name, format string, args ...any) {
	c.Problems = append(c.Problems, bundleErr(kind, name, format, args...))
	c.Status = CheckFail
}

// readWARC reads every record of the web part, checks its digests and
// keeps what matchWARC compares. It stops at the first record it cannot
// read.
func (b *Bundle) readWARC(open func() (io.ReadCloser, error), web map[string]webFacts) ([]*warcRecord, *BundleError) {
	webEntries := len(web)
	rc, err := open()
	if err != nil {
		return nil, bundleErr(BundleMalformed, BundleWARC, "cannot be read: %v", err)
	}
	defer rc.Close()
	zr, err := gzip.NewReader(rc)
	if err != nil {
		return nil, bundleErr(BundleMalformed, BundleWARC, "not gzip: %v", err)
	}
	// What it may expand to: the snapshots once each (as the zip holds
	// them: its sizes are capped and checked as they are read, the
	// manifest's are only claims) and the headers.
	budget := int64(64 << 10)
	seen := map[string]bool{}
	for _, s := range b.Manifest.Snapshots {
		if f := b.fs[s.File]; f != nil && strings.HasPrefix(s.File, bundleSnapshots) && !seen[s.File] {
			seen[s.File] = true
			budget += int64(f.UncompressedSize64)
		}
	}
	for id, f := range web {
		budget += 8<<10 + 6*int64(len(f.url)) + 2*int64(len(b.Entries[id].Reference))
	}
	lr := &capReader{r: zr, left: budget}
	br := bufio.NewReaderSize(lr, 32<<10)
	var recs []*warcRecord
	for n := 1; ; n++ {
		if _, err := br.Peek(1); err == io.EOF {
			return recs, nil
		}
		if n > webEntries*warcRecordsPerWeb+1 {
			return recs, bundleErr(BundleTampered, BundleWARC, "record %d: more records than %d web entries have", n, webEntries)
		}
		r, perr := readWARCRecord(br, n)
		if perr == nil {
			recs = append(recs, r)
			continue
		}
		if lr.over {
			return recs, bundleErr(BundleTooLarge, BundleWARC, "expands past %d bytes, more than its snapshots and headers take: a bomb", budget)
		}
		return recs, perr
	}
}

// readWARCRecord reads record n: its header, its block (hashed as it is
// read, the payload too) and the two CRLFs after it.
func readWARCRecord(br *bufio.Reader, n int) (*warcRecord, *BundleError) {
	r := &warcRecord{n: n, id: fmt.Sprintf("record-%d", n)}
	bad := func(kind, format string, args ...any) *BundleError {
		return bundleErr(kind, r.name(), "record %d: "+format, append([]any{n}, args...)...)
	}
	lines, err := readHead(br)
	if err != nil || lines[0] != "WARC/1.1" {
		first := ""
		if len(lines) > 0 {
			first = lines[0]
		}
		return nil, bad(BundleMalformed, "not a WARC/1.1 record (%q, %v)", trimLine(first), err)
	}
	hdr, err := mimeHeader(lines[1:])
	if err != nil {
		return nil, bad(BundleMalformed, "its header does not parse: %v", err)
	}
	r.hdr, r.typ = hdr, hdr.Get("WARC-Type")
	if id := hdr.Get("WARC-Record-ID"); id != "" {
		r.id = id
	}
	rest := br
	size, err := strconv.ParseInt(hdr.Get("Content-Length"), 10, 64)
	if err != nil || size < 0 {
		return nil, bad(BundleMalformed, "Content-Length %q", hdr.Get("Content-Length"))
	}
	block := sha256.New()
	body := io.TeeReader(io.LimitReader(rest, size), block)
	var payload hash.Hash
	switch r.typ {
	case "response":
		hb := bufio.NewReader(body)
		head, err := readHTTPHead(hb)
		if err != nil {
			return nil, bad(BundleTampered, "its HTTP response head does not parse: %v", err)
		}
		r.httpHead, payload = head, sha256.New()
		_, err = io.Copy(payload, hb)
		if err != nil {
			return nil, bad(BundleMalformed, "cannot be read: %v", err)
		}
	case "resource":
		payload = sha256.New()
		if _, err := io.Copy(payload, body); err != nil {
			return nil, bad(BundleMalformed, "cannot be read: %v", err)
		}
	case "metadata", "warcinfo", "request":
		data, err := io.ReadAll(io.LimitReader(body, maxWARCHeader+1))
		if err != nil {
			return nil, bad(BundleMalformed, "cannot be read: %v", err)
		}
		if len(data) > maxWARCHeader {
			return nil, bad(BundleTooLarge, "a %s record over %d bytes", r.typ, maxWARCHeader)
		}
		if r.typ == "metadata" {
			r.fields = warcFields(data)
		}
	default:
		return nil, bad(BundleTampered, "a %q record: the web part has warcinfo, request, response, resource and metadata records only", r.typ)
	}
	if _, err := io.Copy(io.Discard, body); err != nil {
		return nil, bad(BundleMalformed, "cannot be read: %v", err)
	}
	var tail [4]byte
	if k, _ := io.ReadFull(rest, tail[:]); k != 4 || string(tail[:]) != "\r\n\r\n" {
		return nil, bad(BundleMalformed, "truncated or longer than its Content-Length %d", size)
	}
	if got := "sha256:" + hex.EncodeToString(block.Sum(nil)); got != hdr.Get("WARC-Block-Digest") {
		return nil, bad(BundleTampered, "the block hashes to %s, not its WARC-Block-Digest %s: the record was edited", got, hdr.Get("WARC-Block-Digest"))
	}
	if payload != nil {
		r.payload = "sha256:" + hex.EncodeToString(payload.Sum(nil))
		if d := hdr.Get("WARC-Payload-Digest"); d != r.payload {
			return nil, bad(BundleTampered, "the payload hashes to %s, not its WARC-Payload-Digest %s: the record was edited", r.payload, d)
		}
	}
	return r, nil
}

// readHead reads the lines of a head up to the blank line that ends it
// (CRLF or LF), at most maxWARCHeader bytes.
func readHead(br *bufio.Reader) ([]string, error) {
	var lines []string
	total := 0
	for {
		b, err := br.ReadSlice('\n')
		if err != nil {
			if err == bufio.ErrBufferFull {
				err = errors.New("a header line too long")
			}
			return lines, err
		}
		if total += len(b); total > maxWARCHeader {
			return lines, fmt.Errorf("a head over %d bytes", maxWARCHeader)
		}
		line := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		if line == "" {
			if len(lines) == 0 {
				return lines, errors.New("an empty head")
			}
			return lines, nil
		}
		lines = append(lines, line)
	}
}

// mimeHeader parses "Name: value" lines (no continuation lines: the
// writer puts each value on one line).
func mimeHeader(lines []string) (textproto.MIMEHeader, error) {
	h := textproto.MIMEHeader{}
	for _, l := range lines {
		k, v, ok := strings.Cut(l, ":")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil, fmt.Errorf("line %q", trimLine(l))
		}
		h.Add(textproto.CanonicalMIMEHeaderKey(k), strings.TrimSpace(v))
	}
	return h, nil
}

// readHTTPHead reads a response's status line and header.
func readHTTPHead(br *bufio.Reader) (*httpHead, error) {
	lines, err := readHead(br)
	if err != nil {
		return nil, err
	}
	proto, rest, _ := strings.Cut(lines[0], " ")
	code, _, _ := strings.Cut(rest, " ")
	st, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/") || err != nil {
		return nil, fmt.Errorf("status line %q", trimLine(lines[0]))
	}
	hdr, err := mimeHeader(lines[1:])
	if err != nil {
		return nil, err
	}
	return &httpHead{status: st, hdr: hdr}, nil
}

// warcFields parses application/warc-fields.
func warcFields(b []byte) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\r\n") {
		if k, v, ok := strings.Cut(line, ": "); ok {
			out[k] = v
		}
	}
	return out
}

// matchWARC compares the records with the bundle's web entries.
func (b *Bundle) matchWARC(c *WARCCheck, recs []*warcRecord, web map[string]webFacts) {
	snaps := map[string]bool{}
	for _, s := range b.Manifest.Snapshots {
		snaps[s.Hash] = true
	}
	captures := map[string]*warcRecord{} // record id → response or resource
	captured := map[string]bool{}        // snapshot → has a capture
	described := map[string]bool{}       // entry id → has its metadata record
	for _, r := range recs {
		if r.typ != "response" && r.typ != "resource" {
			continue
		}
		c.Captures++
		if !snaps[r.payload] {
			c.fail(BundleTampered, r.name(), "record %d: its payload (%s) is none of the bundle's snapshots", r.n, r.payload)
			continue
		}
		if !b.citedAs(r, web) {
			c.fail(BundleTampered, r.name(), "record %d: no web entry citing %s recorded this %s (URL, status or headers differ)", r.n, r.payload, r.typ)
			continue
		}
		captures[r.id], captured[r.payload] = r, true
	}
	for _, r := range recs {
		switch r.typ {
		case "request":
			if to := captures[r.hdr.Get("WARC-Concurrent-To")]; to == nil || to.typ != "response" {
				c.fail(BundleTampered, r.name(), "record %d: a request for no response of the web part", r.n)
			}
		case "metadata":
			b.matchMetadata(c, r, captures, described, web)
		}
	}
	for _, be := range b.Manifest.Entries {
		f, ok := web[be.ID]
		if !ok {
			continue
		}
		e := b.Entries[be.ID]
		if !captured[e.Snapshot] {
			c.fail(BundleTampered, BundleWARC, "no record holds the snapshot %s of entry %s (%s)", e.Snapshot, be.ID, f.url)
		}
		if !described[be.ID] {
			c.fail(BundleTampered, BundleWARC, "no metadata record names entry %s (%s)", be.ID, f.url)
		}
	}
}

// citedAs reports whether a web entry citing r's payload recorded r: the
// URL, and for a response of the body as received its status and headers.
func (b *Bundle) citedAs(r *warcRecord, web map[string]webFacts) bool {
	for id, f := range web {
		e := b.Entries[id]
		if e.Snapshot != r.payload || f.url != r.hdr.Get("WARC-Target-URI") || f.raw != (r.typ == "response") {
			continue
		}
		if r.typ == "resource" {
			if r.hdr.Get("Content-Type") == convertedType(f.format) {
				return true
			}
			continue
		}
		h := r.httpHead
		if h.status == f.status && h.hdr.Get("Content-Type") == oneLine(f.contentType) && h.hdr.Get("ETag") == oneLine(f.etag) &&
			h.hdr.Get("Last-Modified") == oneLine(f.lastModified) {
			return true
		}
	}
	return false
}

// matchMetadata checks a metadata record against the entry it names.
func (b *Bundle) matchMetadata(c *WARCCheck, r *warcRecord, captures map[string]*warcRecord, described map[string]bool, web map[string]webFacts) {
	id := r.fields["retrieval-id"]
	f, ok := web[id]
	if !ok {
		c.fail(BundleTampered, r.name(), "record %d: names retrieval %q, not a web entry of the bundle", r.n, id)
		return
	}
	if described[id] {
		c.fail(BundleTampered, r.name(), "record %d: a second metadata record for entry %s", r.n, id)
		return
	}
	described[id] = true
	e := b.Entries[id]
	want := map[string]string{"op": e.Op, "reference": oneLine(e.Reference), "citation-hash": e.Hash, "source-hash": e.SourceHash, "snapshot": e.Snapshot}
	for _, k := range []string{"op", "reference", "citation-hash", "source-hash", "snapshot"} {
		if r.fields[k] != want[k] {
			c.fail(BundleTampered, r.name(), "record %d: its %s is %q, entry %s recorded %q", r.n, k, r.fields[k], id, want[k])
			return
		}
	}
	if r.hdr.Get("WARC-Target-URI") != f.url {
		c.fail(BundleTampered, r.name(), "record %d: its URL %q is not entry %s's %q", r.n, r.hdr.Get("WARC-Target-URI"), id, f.url)
		return
	}
	if to := captures[r.hdr.Get("WARC-Refers-To")]; to == nil || to.payload != e.Snapshot {
		c.fail(BundleTampered, r.name(), "record %d: refers to %q, not the record of entry %s's snapshot", r.n, r.hdr.Get("WARC-Refers-To"), id)
	}
}

// capReader fails once more than left bytes were read.
type capReader struct {
	r    io.Reader
	left int64
	over bool
}

var errWARCCap = errors.New("over the web part's cap")

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		c.over = true
		return 0, errWARCCap
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// trimLine shortens a line quoted in an error.
func trimLine(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
