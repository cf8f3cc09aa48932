package ledger_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
)

// webFixture is a bundle fixture whose first entries are web captures:
// two of a response body as received (one snapshot, at two URLs), one of
// a page converted to Markdown; the rest are files.
func webFixture(t testing.TB) (*bundleFixture, []byte) {
	f := newBundleFixture(t, 6, 3)
	url := "http://127.0.0.1:8080/page"
	for i, e := range f.entries[:4] {
		if e.Snapshot == "" {
			continue
		}
		raw := i != 1
		if raw {
			e.SourceHash = e.Snapshot
		} else {
			e.SourceHash = "sha256:" + strings.Repeat("ab", 32)
		}
		format := "html"
		if !raw {
			format = "markdown"
		}
		e.Target = url + strconv.Itoa(i%2)
		e.Result = []byte(fmt.Sprintf(`{"n":%d,"retrieved":{"format":%q},"provenance":{"source_type":"web","metadata":{"final_url":%q,"content_type":"text/html","etag":"\"v1\"","status":200}}}`,
			i, format, e.Target))
	}
	f.leaves = leavesOf(f.entries)
	return f, f.writeWeb(t, f.entries, f.note(t, len(f.entries)))
}

// writeWeb is write with the web part, as `retrieve export` makes it.
func (f *bundleFixture) writeWeb(t testing.TB, sel []*store.Entry, note []byte) []byte {
	open := func(_ context.Context, h string) (io.ReadCloser, error) {
		b, ok := f.snaps[h]
		if !ok {
			return nil, errors.New("no such snapshot")
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	var buf bytes.Buffer
	in := ledger.BundleInput{Entries: sel, Leaves: f.leaves, Note: note, Key: f.public, Producer: "test", Selection: "test", Now: f.entries[0].Time,
		Snapshot: open, WARC: func(w io.Writer) error {
			_, err := ledger.WriteWARC(context.Background(), w, sel, open)
			return err
		}}
	if _, err := ledger.WriteBundle(context.Background(), &buf, in); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// warcRec is one record of a WARC stream, for editing.
type warcRec struct {
	head  []string // header lines, without Content-Length
	block []byte
}

func (r *warcRec) get(k string) string {
	for _, l := range r.head {
		if v, ok := strings.CutPrefix(l, k+": "); ok {
			return v
		}
	}
	return ""
}

func (r *warcRec) set(k, v string) {
	for i, l := range r.head {
		if strings.HasPrefix(l, k+": ") {
			r.head[i] = k + ": " + v
		}
	}
}

func digest(b []byte) string { return "sha256:" + hashHex(b) }

// parseWARC splits the decompressed web part into records.
func parseWARC(t testing.TB, gz []byte) []*warcRec {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(zr)
	var out []*warcRec
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF {
			return out
		}
		r := &warcRec{}
		var size int
		for line != "\r\n" {
			if n, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				size, _ = strconv.Atoi(strings.TrimSpace(n))
			} else {
				r.head = append(r.head, strings.TrimSuffix(line, "\r\n"))
			}
			if line, err = br.ReadString('\n'); err != nil {
				t.Fatal(err)
			}
		}
		r.block = make([]byte, size+4)
		if _, err := io.ReadFull(br, r.block); err != nil {
			t.Fatal(err)
		}
		r.block = r.block[:size]
		out = append(out, r)
	}
}

// formatWARC writes records back, each a gzip member.
func formatWARC(recs []*warcRec) []byte {
	var out bytes.Buffer
	for _, r := range recs {
		zw := gzip.NewWriter(&out)
		fmt.Fprintf(zw, "%s\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n", strings.Join(r.head, "\r\n"), len(r.block), r.block)
		zw.Close()
	}
	return out.Bytes()
}

// editWARC rewrites a bundle's web part through edit.
func editWARC(t testing.TB, raw []byte, edit func([]*warcRec) []*warcRec) []byte {
	return rezip(t, raw, func(n string, b []byte) []byte {
		if n == ledger.BundleWARC {
			return formatWARC(edit(parseWARC(t, b)))
		}
		return b
	})
}

// ofType returns the records of a type.
func ofType(recs []*warcRec, typ string) []*warcRec {
	var out []*warcRec
	for _, r := range recs {
		if r.get("WARC-Type") == typ {
			out = append(out, r)
		}
	}
	return out
}

// redigest recomputes a record's digests, as a careful forger would.
func redigest(r *warcRec) {
	r.set("WARC-Block-Digest", digest(r.block))
	switch r.get("WARC-Type") {
	case "resource":
		r.set("WARC-Payload-Digest", digest(r.block))
	case "response":
		_, body, _ := bytes.Cut(r.block, []byte("\r\n\r\n"))
		r.set("WARC-Payload-Digest", digest(body))
	}
}

func TestBundleWARCVerifies(t *testing.T) {
	f, raw := webFixture(t)
	b, err := open(t, raw)
	if err != nil {
		t.Fatal(err)
	}
	v := b.Verify(context.Background(), f.public)
	if v.WARC.Status != ledger.CheckOK || len(v.WARC.Problems) != 0 {
		t.Fatalf("web part: %+v", v.WARC)
	}
	// warcinfo; one snapshot (cited by two entries at two URLs) as a
	// response with its request, one as a resource; three metadata records.
	if v.WARC.Records != 7 || v.WARC.Captures != 2 {
		t.Errorf("records %d, captures %d; want 7 and 2", v.WARC.Records, v.WARC.Captures)
	}
	// A bundle without web entries has no web part, and nothing to check.
	b, err = open(t, f.write(t, f.entries[4:], nil))
	if err != nil {
		t.Fatal(err)
	}
	if v := b.Verify(context.Background(), ""); v.WARC.Status != ledger.CheckNone {
		t.Errorf("no web part: %+v", v.WARC)
	}
}

// Each edit of the web part is refused with a typed error that names the
// record (web.warc.gz#<its WARC-Record-ID>), or the file.
func TestBundleWARCTamperingIsNamed(t *testing.T) {
	f, raw := webFixture(t)
	recs := parseWARC(t, mustRead(t, raw, ledger.BundleWARC))
	resp := ofType(recs, "response")[0]
	meta := ofType(recs, "metadata")[0]
	name := func(r *warcRec) string { return ledger.BundleWARC + "#" + r.get("WARC-Record-ID") }
	flip := func(b []byte) []byte { b = append([]byte{}, b...); b[len(b)-2] ^= 1; return b }
	cases := []struct {
		name     string
		edit     func([]*warcRec) []*warcRec
		kind, at string
		detail   string
	}{
		{"PayloadEdited", func(rs []*warcRec) []*warcRec {
			ofType(rs, "response")[0].block = flip(ofType(rs, "response")[0].block)
			return rs
		}, ledger.BundleTampered, name(resp), "WARC-Block-Digest"},
		{"PayloadEditedDigestsRecomputed", func(rs []*warcRec) []*warcRec {
			r := ofType(rs, "response")[0]
			r.block = flip(r.block)
			redigest(r)
			return rs
		}, ledger.BundleTampered, name(resp), "none of the bundle's snapshots"},
		{"PayloadDigestEdited", func(rs []*warcRec) []*warcRec {
			ofType(rs, "response")[0].set("WARC-Payload-Digest", digest([]byte("other")))
			return rs
		}, ledger.BundleTampered, name(resp), "WARC-Payload-Digest"},
		{"HeaderEditedDigestsRecomputed", func(rs []*warcRec) []*warcRec {
			r := ofType(rs, "response")[0]
			r.block = bytes.Replace(r.block, []byte("Content-Type: text/html"), []byte("Content-Type: text/plain"), 1)
			redigest(r)
			return rs
		}, ledger.BundleTampered, name(resp), "headers differ"},
		{"MetadataHashEdited", func(rs []*warcRec) []*warcRec {
			r := ofType(rs, "metadata")[0]
			r.block = bytes.Replace(r.block, []byte("citation-hash: sha256:0"), []byte("citation-hash: sha256:1"), 1)
			redigest(r)
			return rs
		}, ledger.BundleTampered, name(meta), "citation-hash"},
		{"MetadataRemoved", func(rs []*warcRec) []*warcRec {
			var out []*warcRec
			for _, r := range rs {
				if r.get("WARC-Record-ID") != meta.get("WARC-Record-ID") {
					out = append(out, r)
				}
			}
			return out
		}, ledger.BundleTampered, ledger.BundleWARC, "no metadata record names entry"},
		{"RecordOfAnotherType", func(rs []*warcRec) []*warcRec {
			x := &warcRec{head: []string{"WARC/1.1", "WARC-Type: revisit", "WARC-Record-ID: <urn:uuid:x>"}, block: []byte("x")}
			x.head = append(x.head, "WARC-Block-Digest: "+digest(x.block))
			return append(rs, x)
		}, ledger.BundleTampered, ledger.BundleWARC + "#<urn:uuid:x>", "revisit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := open(t, editWARC(t, raw, tc.edit))
			if err != nil {
				t.Fatal(err)
			}
			v := b.Verify(context.Background(), f.public)
			wantProblem(t, v.WARC, tc.kind, tc.at, tc.detail)
		})
	}
	t.Run("Truncated", func(t *testing.T) {
		b, err := open(t, rezip(t, raw, func(n string, b []byte) []byte {
			if n == ledger.BundleWARC {
				zr, _ := gzip.NewReader(bytes.NewReader(b))
				all, _ := io.ReadAll(zr)
				var out bytes.Buffer
				zw := gzip.NewWriter(&out)
				zw.Write(all[:len(all)-300])
				zw.Close()
				return out.Bytes()
			}
			return b
		}))
		if err != nil {
			t.Fatal(err)
		}
		wantProblem(t, b.Verify(context.Background(), f.public).WARC, ledger.BundleMalformed, "", "truncated")
	})
	t.Run("Removed", func(t *testing.T) {
		b, err := open(t, rezip(t, raw, func(n string, b []byte) []byte {
			if n == ledger.BundleWARC {
				return nil
			}
			return b
		}))
		if err != nil {
			t.Fatal(err)
		}
		wantProblem(t, b.Verify(context.Background(), f.public).WARC, ledger.BundleMalformed, ledger.BundleWARC, "does not have it")
	})
}

// wantProblem wants the web part failed with a problem of kind, naming at
// ("": any record of the web part), whose detail says detail.
func wantProblem(t *testing.T, w ledger.WARCCheck, kind, at, detail string) {
	t.Helper()
	if w.Status != ledger.CheckFail {
		t.Fatalf("web part %s, want failed: %+v", w.Status, w.Problems)
	}
	for _, p := range w.Problems {
		if p.Kind == kind && strings.Contains(p.Detail, detail) &&
			(p.Name == at || at == "" && strings.HasPrefix(p.Name, ledger.BundleWARC+"#")) {
			return
		}
	}
	var got []string
	for _, p := range w.Problems {
		got = append(got, p.Error())
	}
	t.Errorf("no %s problem naming %q that says %q: %q", kind, at, detail, got)
}

func mustRead(t testing.TB, raw []byte, name string) []byte {
	var out []byte
	rezip(t, raw, func(n string, b []byte) []byte {
		if n == name {
			out = b
		}
		return b
	})
	if out == nil {
		t.Fatalf("no %s in the bundle", name)
	}
	return out
}

// FuzzVerifyWARC puts arbitrary (decompressed) web parts in a bundle: the
// check never panics, refuses with typed errors naming the web part, and
// passes only the web part the exporter wrote.
func FuzzVerifyWARC(f *testing.F) {
	fx, raw := webFixture(f)
	gz := mustRead(f, raw, ledger.BundleWARC)
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		f.Fatal(err)
	}
	orig, _ := io.ReadAll(zr)
	f.Add(orig)
	f.Add(orig[:len(orig)/2])
	f.Add([]byte("WARC/1.1\r\nContent-Length: 99999999999\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var w bytes.Buffer
		zw := gzip.NewWriter(&w)
		zw.Write(data)
		zw.Close()
		b, err := open(t, rezip(t, raw, func(n string, b []byte) []byte {
			if n == ledger.BundleWARC {
				return w.Bytes()
			}
			return b
		}))
		if err != nil {
			t.Fatal(err)
		}
		v := b.Verify(context.Background(), fx.public).WARC
		for _, p := range v.Problems {
			if !strings.HasPrefix(p.Name, ledger.BundleWARC) || p.Kind == "" {
				t.Fatalf("problem %+v does not name the web part", p)
			}
		}
		// A web part that passes holds every web snapshot and entry.
		if v.Status == ledger.CheckOK && v.Captures < 2 {
			t.Fatalf("passed with %d captures of 2 snapshots", v.Captures)
		}
		if bytes.Equal(data, orig) && v.Status != ledger.CheckOK {
			t.Fatalf("the exporter's web part fails: %+v", v.Problems)
		}
	})
}
