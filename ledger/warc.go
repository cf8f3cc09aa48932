package ledger

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve/store"
)

// The web part of the ledger as WARC 1.1 (ISO 28500:2017), gzip member
// per record, so that archive tools (pywb, warcio, gowarc) open the pages
// a bundle cites: a warcinfo record; for each web snapshot that is the
// response body as received (the snapshot's hash is the citation's
// source_hash: --format html, JSON, text) a request and a response record
// whose payload is those bytes, exactly, with the HTTP headers the entry
// recorded (status, Content-Type, ETag, Last-Modified — retrieve keeps no
// others); for a snapshot that is retrieve's conversion of the page (the
// default Markdown of an HTML page: the raw body is not kept) a resource
// record of that text, never passed off as the response; and for each
// entry a metadata record that names the retrieval, its citation and its
// hashes. WARC-Payload-Digest is the snapshot's sha256.

// maxWARCBody caps one web snapshot put in a WARC file (read whole to
// write its Content-Length first).
const maxWARCBody = 256 << 20

// webFacts is what an entry's recorded result says of its web response.
type webFacts struct {
	url, contentType, etag, lastModified string
	status                               int
	// format is the recorded data's format; raw says the snapshot is the
	// response body itself (its hash is the source hash).
	format string
	raw    bool
}

func webEntry(e *store.Entry) (webFacts, bool) {
	if e.Snapshot == "" || e.Status != store.StatusOK {
		return webFacts{}, false
	}
	var r struct {
		Retrieved struct {
			Format string `json:"format"`
		} `json:"retrieved"`
		Provenance struct {
			SourceType string         `json:"source_type"`
			Metadata   map[string]any `json:"metadata"`
		} `json:"provenance"`
	}
	if json.Unmarshal(e.Result, &r) != nil || (r.Provenance.SourceType != "web" && r.Provenance.SourceType != "api") {
		return webFacts{}, false
	}
	md := r.Provenance.Metadata
	str := func(k string) string { s, _ := md[k].(string); return s }
	f := webFacts{url: str("final_url"), contentType: str("content_type"), etag: str("etag"), lastModified: str("last_modified"), status: 200,
		format: r.Retrieved.Format, raw: e.Snapshot == e.SourceHash}
	if f.url == "" {
		f.url = e.Target
	}
	if s, ok := md["status"].(float64); ok && s >= 100 && s < 600 {
		f.status = int(s)
	}
	if u, err := url.Parse(f.url); err != nil || u.Host == "" {
		return webFacts{}, false
	}
	return f, true
}

// HasWeb reports whether an entry is a web retrieval with a snapshot.
func HasWeb(entries []*store.Entry) bool {
	for _, e := range entries {
		if _, ok := webEntry(e); ok {
			return true
		}
	}
	return false
}

// WriteWARC writes the web entries of entries (and their snapshots, read
// with open) as WARC 1.1 records to w, and returns how many snapshots it
// wrote (as responses or resources).
func WriteWARC(ctx context.Context, w io.Writer, entries []*store.Entry, open func(context.Context, string) (io.ReadCloser, error)) (int, error) {
	ww := &warcWriter{w: w}
	if !HasWeb(entries) {
		return 0, nil
	}
	info := "software: retrieve\r\nformat: WARC File Format 1.1\r\nconformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n" +
		"description: web snapshots of retrieve's ledger; HTTP headers other than status, Content-Type, ETag and Last-Modified are not recorded\r\n"
	if err := ww.record("warcinfo", time.Now(), recordID("warcinfo", info), nil, "application/warc-fields", []byte(info)); err != nil {
		return 0, err
	}
	responses := map[string]string{}
	for _, e := range entries {
		f, ok := webEntry(e)
		if !ok {
			continue
		}
		resp, done := responses[e.Snapshot]
		if !done {
			id, err := ww.capture(ctx, e, f, open)
			if err != nil {
				return 0, err
			}
			responses[e.Snapshot], resp = id, id
		}
		meta := fmt.Sprintf("retrieval-id: %s\r\nop: %s\r\nreference: %s\r\ncitation-hash: %s\r\nsource-hash: %s\r\nsnapshot: %s\r\nretrieved: %s\r\n",
			e.ID, e.Op, oneLine(e.Reference), e.Hash, e.SourceHash, e.Snapshot, e.Time.UTC().Format(time.RFC3339Nano))
		if !f.raw {
			meta += "note: the snapshot is retrieve's " + f.format + " of the response body, whose sha256 is the source-hash; the body itself was not kept\r\n"
		}
		hdr := [][2]string{{"WARC-Target-URI", f.url}, {"WARC-Refers-To", resp}, {"WARC-Concurrent-To", resp}}
		if err := ww.record("metadata", e.Time, recordID("metadata", e.ID), hdr, "application/warc-fields", []byte(meta)); err != nil {
			return 0, err
		}
	}
	return len(responses), nil
}

// capture writes the request and response records of e's snapshot (or
// its resource record, for a converted page) and returns the record id.
func (ww *warcWriter) capture(ctx context.Context, e *store.Entry, f webFacts, open func(context.Context, string) (io.ReadCloser, error)) (string, error) {
	rc, err := open(ctx, e.Snapshot)
	if err != nil {
		return "", fmt.Errorf("snapshot %s: %w", e.Snapshot, err)
	}
	body, err := io.ReadAll(io.LimitReader(rc, maxWARCBody+1))
	rc.Close()
	if err != nil {
		return "", fmt.Errorf("snapshot %s: %w", e.Snapshot, err)
	}
	if len(body) > maxWARCBody {
		return "", fmt.Errorf("snapshot %s is over %d bytes: too large for the WARC part", e.Snapshot, maxWARCBody)
	}
	sum := sha256.Sum256(body)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	if !f.raw {
		id := recordID("resource", e.Snapshot)
		hdr := [][2]string{{"WARC-Target-URI", f.url}, {"WARC-Payload-Digest", digest}}
		return id, ww.record("resource", e.Time, id, hdr, convertedType(f.format), body)
	}
	u, _ := url.Parse(f.url)
	reqID, respID := recordID("request", e.Snapshot+e.ID), recordID("response", e.Snapshot)
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", u.RequestURI(), u.Host)
	if err := ww.record("request", e.Time, reqID, [][2]string{{"WARC-Target-URI", f.url}, {"WARC-Concurrent-To", respID}},
		"application/http;msgtype=request", []byte(req)); err != nil {
		return "", err
	}
	var h bytes.Buffer
	fmt.Fprintf(&h, "HTTP/1.1 %d %s\r\n", f.status, http.StatusText(f.status))
	for _, kv := range [][2]string{{"Content-Type", f.contentType}, {"ETag", f.etag}, {"Last-Modified", f.lastModified}} {
		if kv[1] != "" {
			fmt.Fprintf(&h, "%s: %s\r\n", kv[0], oneLine(kv[1]))
		}
	}
	fmt.Fprintf(&h, "Content-Length: %d\r\n\r\n", len(body))
	hdr := [][2]string{{"WARC-Target-URI", f.url}, {"WARC-Payload-Digest", digest}}
	block := append(h.Bytes(), body...)
	return respID, ww.record("response", e.Time, respID, hdr, "application/http;msgtype=response", block)
}

// convertedType is the media type of a snapshot in a recorded format.
func convertedType(format string) string {
	switch format {
	case "markdown":
		return "text/markdown; charset=utf-8"
	case "text":
		return "text/plain; charset=utf-8"
	case "json":
		return "application/json"
	}
	return "application/octet-stream"
}

type warcWriter struct{ w io.Writer }

// record writes one WARC record as its own gzip member.
func (ww *warcWriter) record(typ string, t time.Time, id string, extra [][2]string, ctype string, block []byte) error {
	var b bytes.Buffer
	sum := sha256.Sum256(block)
	fmt.Fprintf(&b, "WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: %s\r\nWARC-Date: %s\r\n", typ, id, t.UTC().Format("2006-01-02T15:04:05.000000Z"))
	for _, kv := range extra {
		fmt.Fprintf(&b, "%s: %s\r\n", kv[0], oneLine(kv[1]))
	}
	fmt.Fprintf(&b, "Content-Type: %s\r\nWARC-Block-Digest: sha256:%s\r\nContent-Length: %d\r\n\r\n", ctype, hex.EncodeToString(sum[:]), len(block))
	b.Write(block)
	b.WriteString("\r\n\r\n")
	zw := gzip.NewWriter(ww.w)
	if _, err := zw.Write(b.Bytes()); err != nil {
		return err
	}
	return zw.Close()
}

// recordID is a name-based urn:uuid (the same record gets the same id).
func recordID(kind, name string) string {
	s := sha256.Sum256([]byte("retrieve-warc\x00" + kind + "\x00" + name))
	s[6] = s[6]&0x0f | 0x80 // version 8 (custom), RFC 9562
	s[8] = s[8]&0x3f | 0x80
	h := hex.EncodeToString(s[:16])
	return fmt.Sprintf("<urn:uuid:%s-%s-%s-%s-%s>", h[:8], h[8:12], h[12:16], h[16:20], h[20:32])
}

// oneLine keeps a header value on one line.
func oneLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}
