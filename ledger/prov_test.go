package ledger_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"
	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func provSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/prov-json-schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("prov-json-schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("prov-json-schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPROVValidatesAgainstTheSchema(t *testing.T) {
	f := newBundleFixture(t, 6, 2)
	f.entries[1].Status, f.entries[1].Code, f.entries[1].Snapshot = store.StatusError, "PATH_NOT_FOUND", ""
	f.entries[4].Op, f.entries[4].Target = "observe", "https://example.org/a page?q=1"
	doc, err := ledger.PROV(f.entries, ledger.PROVOptions{Producer: "test", Session: "sess 1"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	schema := provSchema(t)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("not valid PROV-JSON: %v\n%s", err, b)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	m := map[string]map[string]map[string]any{}
	for _, k := range []string{"activity", "entity", "agent", "used", "actedOnBehalfOf"} {
		var v map[string]map[string]any
		if err := json.Unmarshal(raw[k], &v); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		m[k] = v
	}
	if n := len(m["activity"]); n != 6 {
		t.Errorf("%d activities, want one per entry (6)", n)
	}
	var cits, snaps int
	for id, e := range m["entity"] {
		switch {
		case strings.HasPrefix(id, "retrieve:citation/"):
			cits++
			if e["retrieve:hash"] == "" || e["prov:generatedAtTime"] == nil {
				t.Errorf("citation %s without hash or time: %v", id, e)
			}
		case strings.HasPrefix(id, "retrieve:snapshot/"):
			snaps++
		}
	}
	if cits != 5 || snaps != 2 {
		t.Errorf("%d citations (want 5: the failed entry cites nothing), %d snapshots (want 2)", cits, snaps)
	}
	if len(m["actedOnBehalfOf"]) != 1 || len(m["agent"]) != 2 {
		t.Errorf("the session's agent is missing: %v", m["agent"])
	}
	// The validator is not vacuous: a usage without its activity fails.
	for _, u := range m["used"] {
		delete(u, "prov:activity")
		break
	}
	raw["used"], _ = json.Marshal(m["used"])
	bad, _ := json.Marshal(raw)
	inst, _ = jsonschema.UnmarshalJSON(bytes.NewReader(bad))
	if schema.Validate(inst) == nil {
		t.Fatal("a usage without prov:activity validated")
	}
}

func webEntries(t *testing.T) ([]*store.Entry, map[string][]byte) {
	body := []byte("<html><body><p>hello web</p></body></html>")
	snap := "sha256:" + hashHex(body)
	res := `{"citation":{"reference":"http://127.0.0.1:8080/page","hash":"sha256:00"},"provenance":{"source_type":"web","metadata":{"status":200,"final_url":"http://127.0.0.1:8080/page","content_type":"text/html; charset=utf-8","etag":"\"e1\""}}}`
	t0 := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	mk := func(id string, dt time.Duration) *store.Entry {
		return &store.Entry{ID: id, Time: t0.Add(dt), Op: "get", Target: "http://127.0.0.1:8080/page", Reference: "http://127.0.0.1:8080/page",
			Status: store.StatusOK, Hash: "sha256:00", Snapshot: snap, SourceHash: snap, Result: json.RawMessage(res), Request: json.RawMessage(`{}`)}
	}
	md := []byte("# Hello\n\nhello web\n")
	conv := mk("web-md", 2*time.Minute)
	conv.Snapshot, conv.Target = "sha256:"+hashHex(md), "http://127.0.0.1:8080/article"
	conv.Result = json.RawMessage(strings.Replace(strings.ReplaceAll(res, "/page", "/article"), `{"citation"`, `{"retrieved":{"format":"markdown"},"citation"`, 1))
	file := &store.Entry{ID: "file-1", Time: t0, Op: "get", Target: "a.txt", Status: store.StatusOK, Snapshot: "sha256:" + hashHex([]byte("x")),
		Result: json.RawMessage(`{"provenance":{"source_type":"file"}}`)}
	return []*store.Entry{mk("web-1", 0), file, mk("web-2", time.Minute), conv}, map[string][]byte{snap: body, conv.Snapshot: md}
}

func TestWARCReadsBackWithGowarc(t *testing.T) {
	es, snaps := webEntries(t)
	var buf bytes.Buffer
	n, err := ledger.WriteWARC(context.Background(), &buf, es, func(_ context.Context, h string) (io.ReadCloser, error) {
		b, ok := snaps[h]
		if !ok {
			return nil, errors.New("no snapshot " + h)
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	})
	if err != nil || n != 2 {
		t.Fatalf("wrote %d snapshots (want 2: the same response twice, and a converted page), %v", n, err)
	}
	r, err := gowarc.NewWarcFileReaderFromStream(bufio.NewReader(bytes.NewReader(buf.Bytes())), 0, gowarc.WithStrictValidation())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	types := map[string]int{}
	for rec, err := range r.Records() {
		if err != nil {
			t.Fatalf("gowarc: %v", err)
		}
		wr := rec.WarcRecord
		if v, err := wr.ValidateDigest(); err != nil || len(v) > 0 {
			t.Fatalf("%s record: digest: %v %v", wr.Type(), err, v)
		}
		types[wr.Type().String()]++
		if wr.Type() == gowarc.Resource {
			// A converted page is a resource, never passed off as the response.
			if got := wr.WarcHeader().Get(gowarc.WarcPayloadDigest); got != es[3].Snapshot || wr.WarcHeader().Get(gowarc.ContentType) != "text/markdown; charset=utf-8" {
				t.Errorf("resource: digest %s, type %s", got, wr.WarcHeader().Get(gowarc.ContentType))
			}
		}
		if wr.Type() == gowarc.Response {
			if got, want := wr.WarcHeader().Get(gowarc.WarcPayloadDigest), es[0].Snapshot; got != want {
				t.Errorf("payload digest %s, want the snapshot's %s", got, want)
			}
			if got := wr.WarcHeader().Get(gowarc.WarcTargetURI); got != "http://127.0.0.1:8080/page" {
				t.Errorf("target %q", got)
			}
			hb, ok := wr.Block().(gowarc.HttpResponseBlock)
			if !ok {
				t.Fatalf("response block is %T", wr.Block())
			}
			p, _ := hb.PayloadBytes()
			body, _ := io.ReadAll(p)
			if !bytes.Equal(body, snaps[es[0].Snapshot]) {
				t.Errorf("payload %q, want the snapshot", body)
			}
			if hb.HttpHeader().Get("Content-Type") != "text/html; charset=utf-8" || hb.HttpStatusCode() != 200 {
				t.Errorf("HTTP header %v status %d", hb.HttpHeader(), hb.HttpStatusCode())
			}
		}
		_ = rec.Close()
	}
	if types["warcinfo"] != 1 || types["request"] != 1 || types["response"] != 1 || types["resource"] != 1 || types["metadata"] != 3 {
		t.Errorf("records %v: want warcinfo, one request and response, one resource, a metadata record per web entry", types)
	}
}
