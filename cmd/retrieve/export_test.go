package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlnwa/gowarc/v3"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// verifyBundleCLI runs verify --bundle in a fresh, empty directory (no
// workspace, no store) and checks that nothing was written there.
func verifyBundleCLI(t *testing.T, bundle string, args ...string) (*bundleReport, string, int) {
	t.Helper()
	fresh := t.TempDir()
	out, errOut, code := runCLI(t, append([]string{"--root", fresh, "verify", "--bundle", bundle, "--json"}, args...)...)
	if ents, _ := os.ReadDir(fresh); len(ents) != 0 {
		t.Errorf("verify --bundle wrote %d files in its directory", len(ents))
	}
	var rep bundleReport
	if code == ExitOK || code == ExitChanged {
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("exit %d, not a report: %v\n%s%s", code, err, out, errOut)
		}
	}
	return &rep, out + errOut, code
}

// rewriteZip copies a zip, letting edit change a file (nil drops it).
func rewriteZip(t *testing.T, src, dst string, edit func(name string, b []byte) []byte) {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		if b = edit(f.Name, b); b != nil {
			w, _ := zw.Create(f.Name)
			w.Write(b)
		}
	}
	zw.Close()
	if err := os.WriteFile(dst, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestExportBundleVerifiesWithoutWorkspace(t *testing.T) {
	l := newLedgerWS(t) // four entries and a checkpoint of all four
	dir := t.TempDir()
	bundle := filepath.Join(dir, "e.zip")
	out, errOut, code := runCLI(t, "--root", l.root, "export", "--ids", strings.Join(l.ids, ","), "-o", bundle, "--json")
	if code != ExitOK {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	var sum exportSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Entries != 4 || sum.Snapshots != 1 || sum.Checkpoint == nil || sum.Checkpoint.Size != 4 {
		t.Fatalf("summary %+v: want 4 entries over one snapshot, the checkpoint of 4", sum)
	}
	pub := filepath.Join(l.root, ".retrieve", "checkpoints", "key.pub")
	rep, text, code := verifyBundleCLI(t, bundle, "--key", pub)
	if code != ExitOK || len(rep.Citations) != 4 {
		t.Fatalf("verify: exit %d\n%s", code, text)
	}
	for _, c := range rep.Citations {
		if c.Status != bundleVerified || c.Data != ledger.CheckOK || c.Snapshot != ledger.CheckOK || c.Anchor != ledger.AnchorSigned {
			t.Errorf("%s: %+v %+v", c.ID, c, c.EntryCheck)
		}
	}

	// Another log's key: the signature fails, and so does every citation.
	otherKey := filepath.Join(dir, "other.key")
	kout, _, _ := runCLI(t, "ledger", "keygen", "--out", otherKey, "--json")
	var kg map[string]string
	_ = json.Unmarshal([]byte(kout), &kg)
	otherPub := filepath.Join(dir, "other.pub")
	os.WriteFile(otherPub, []byte(kg["public_key"]+"\n"), 0o644)
	rep, text, code = verifyBundleCLI(t, bundle, "--key", otherPub)
	if code != ExitChanged || rep.Checkpoint.Signature != ledger.CheckFail || rep.Summary[bundleFailed] != 4 {
		t.Fatalf("another key: exit %d\n%s", code, text)
	}

	snapName := ""
	zr, _ := zip.OpenReader(bundle)
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "snapshots/") {
			snapName = f.Name
		}
	}
	zr.Close()
	forged, _, _ := ledger.Sign(ledger.Checkpoint{Size: 4, Root: rep.Log.Root}, strings.TrimSpace(readFile(t, otherKey)))
	cases := []struct {
		name  string
		edit  func(n string, b []byte) []byte
		code  int
		match string
	}{
		{"SwappedSnapshot", func(n string, b []byte) []byte {
			if n == snapName {
				return []byte("ONE\ntwo\nthree\nfour\n")
			}
			return b
		}, ExitChanged, snapName},
		{"EditedResult", func(n string, b []byte) []byte {
			if n == "entries/"+l.ids[2]+".json" {
				return bytes.Replace(b, []byte(`f.txt:3-3`), []byte(`f.txt:3-4`), 1) // not the id: a UUID may hold "3-3"
			}
			return b
		}, ExitChanged, "entries/" + l.ids[2] + ".json"},
		{"ForgedCheckpoint", func(n string, b []byte) []byte {
			switch n {
			case "checkpoint.note":
				return forged
			case "key.pub":
				return []byte(kg["public_key"] + "\n")
			}
			return b
		}, ExitChanged, "checkpoint.note"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "bad.zip")
			rewriteZip(t, bundle, bad, tc.edit)
			_, text, code := verifyBundleCLI(t, bad, "--key", pub)
			if code != tc.code || !strings.Contains(text, tc.match) || !strings.Contains(text, `"failed"`) {
				t.Fatalf("exit %d (want %d), naming %s?\n%s", code, tc.code, tc.match, text)
			}
		})
	}
	t.Run("Truncated", func(t *testing.T) {
		b, _ := os.ReadFile(bundle)
		bad := filepath.Join(t.TempDir(), "bad.zip")
		os.WriteFile(bad, b[:len(b)*2/3], 0o644)
		_, text, code := verifyBundleCLI(t, bad)
		if code != exitCode(retrieve.CodeParseFailed) || !strings.Contains(text, "PARSE_FAILED") || !strings.Contains(text, "truncated") {
			t.Fatalf("exit %d\n%s", code, text)
		}
	})
	t.Run("PathEscapes", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.zip")
		zb, _ := os.ReadFile(bundle)
		var out bytes.Buffer
		zw := zip.NewWriter(&out)
		zr, _ := zip.NewReader(bytes.NewReader(zb), int64(len(zb)))
		for _, zf := range zr.File {
			w, _ := zw.CreateRaw(&zf.FileHeader)
			r, _ := zf.OpenRaw()
			io.Copy(w, r)
		}
		w, _ := zw.Create("../../escape.txt")
		w.Write([]byte("x"))
		zw.Close()
		os.WriteFile(bad, out.Bytes(), 0o644)
		_, text, code := verifyBundleCLI(t, bad)
		if code != ExitUsage || !strings.Contains(text, "../../escape.txt") || !strings.Contains(text, "escapes") {
			t.Fatalf("exit %d\n%s", code, text)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(bad), "..", "escape.txt")); err == nil {
			t.Fatal("a file escaped")
		}
	})
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestExportSelections(t *testing.T) {
	l := newLedgerWS(t)
	dir := t.TempDir()
	// A document's citations: one by retrieval id, one by reference and hash.
	out, _, _ := runCLI(t, "--root", l.root, "show", l.ids[1], "--json")
	var res retrieve.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Citation.Hash == nil {
		t.Fatalf("show: %v\n%s", err, out)
	}
	doc := filepath.Join(dir, "doc.md")
	os.WriteFile(doc, []byte(fmt.Sprintf("One [x](retrieval:%s). Two [y](%s \"%s\").\n", l.ids[0], res.Citation.Reference, *res.Citation.Hash)), 0o644)
	for name, args := range map[string][]string{
		"Check": {"--check", doc},
		"Since": {"--since", "1h"},
		"IDs":   {"--ids", l.ids[0] + "," + l.ids[1]},
	} {
		t.Run(name, func(t *testing.T) {
			bundle := filepath.Join(t.TempDir(), "b.zip")
			_, errOut, code := runCLI(t, append([]string{"--root", l.root, "export", "-o", bundle}, args...)...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			rep, text, code := verifyBundleCLI(t, bundle)
			want := 2
			if name == "Since" {
				want = 4
			}
			if code != ExitOK || len(rep.Citations) != want {
				t.Fatalf("exit %d, %d citations (want %d)\n%s", code, len(rep.Citations), want, text)
			}
		})
	}
	t.Run("Errors", func(t *testing.T) {
		for _, args := range [][]string{{"-o", "x.zip"}, {"--ids", "a", "--since", "1h", "-o", "x.zip"}, {"--ids", "a"}, {"--ids", "a", "--format", "pdf", "-o", "x"}} {
			if _, errOut, code := runCLI(t, append([]string{"--root", l.root, "export"}, args...)...); code != ExitUsage {
				t.Errorf("%v: exit %d: %s", args, code, errOut)
			}
		}
		// No web entry: no WARC file at all.
		if _, errOut, code := runCLI(t, "--root", l.root, "export", "--since", "1h", "--format", "warc", "-o", filepath.Join(dir, "n.warc.gz")); code != ExitNotFound || !strings.Contains(errOut, "nothing to write as WARC") {
			t.Errorf("warc without web entries: exit %d: %s", code, errOut)
		}
		_, errOut, code := runCLI(t, "--root", l.root, "export", "--ids", "nope", "-o", filepath.Join(dir, "n.zip"))
		if code != ExitNotFound || !strings.Contains(errOut, "not in the ledger") {
			t.Errorf("unknown id: exit %d: %s", code, errOut)
		}
		for _, n := range []string{"n.zip", "n.warc.gz"} {
			if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
				t.Errorf("a failed export left %s", n)
			}
		}
	})
}

func TestExportSession(t *testing.T) {
	ws := sessionWorkspace(t)
	const id = "9ecf22fa-edf8-4332-ae85-b6d5456eda64"
	if _, code := runHookInput(t, "claude-code", fixture(t, "01-read.json", ws.Root)); code != ExitOK {
		t.Fatalf("hook: exit %d", code)
	}
	bundle := filepath.Join(t.TempDir(), "s.zip")
	_, errOut, code := runCLI(t, "--root", ws.Root, "export", "--session", id, "-o", bundle)
	if code != ExitOK {
		t.Fatalf("export --session: exit %d: %s", code, errOut)
	}
	rep, text, code := verifyBundleCLI(t, bundle)
	if code != ExitOK || len(rep.Citations) != 1 || rep.Citations[0].Op != "observe" || rep.Citations[0].Data != ledger.CheckOK {
		t.Fatalf("exit %d\n%s", code, text)
	}
	if rep.Checkpoint.Present || rep.Citations[0].Anchor != ledger.AnchorUnsigned || len(rep.Notes) == 0 {
		t.Errorf("no checkpoint was made: the report must say so: %+v %v", rep.Checkpoint, rep.Notes)
	}
	// A reviewer who asks for a signature gets a failure, not a silent pass.
	pub := filepath.Join(t.TempDir(), "k.pub")
	os.WriteFile(pub, []byte("retrieve-ledger+c01a46e2+AblRxeVHV66FKnilYwGlSaBXwY9fByOKZcNMl/G+WPQI\n"), 0o644)
	if rep, text, code := verifyBundleCLI(t, bundle, "--key", pub); code != ExitChanged || rep.Checkpoint.Problem == nil {
		t.Errorf("--key on an unsigned bundle: exit %d\n%s", code, text)
	}
}

func TestExportPROVAndWARC(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/page" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><head><title>T</title></head><body><article><p>Some article text, with commas, long enough to be content.</p></article></body></html>")
	}))
	defer srv.Close()
	ws := testws.New(t)
	ws.Write(".retrieve/config.yaml", "web:\n  allow_hosts: [127.0.0.1]\n")
	ws.Write("a.txt", "one\n")
	ws.Write("e.jsonl", "{\"a\":1}\n{\"a\":2}\n")
	// Each kind of selection must be extracted again from its snapshot by
	// verify --bundle: a web page's CSS #select= (the source's, before the
	// snapshot), a JSON Lines #select=, a byte range.
	for _, args := range [][]string{{srv.URL + "/page"}, {srv.URL + "/page", "--format", "html"}, {"a.txt"},
		{srv.URL + "/page#select=article%20p"}, {srv.URL + "/page#select=title"}, {"e.jsonl#select=.%5B1%5D"}, {"a.txt#bytes=0-1"}} {
		if _, errOut, code := runCLI(t, append([]string{"--root", ws.Root, "get"}, args...)...); code != ExitOK {
			t.Fatalf("get %v: exit %d: %s", args, code, errOut)
		}
	}
	dir := t.TempDir()
	prov := filepath.Join(dir, "p.json")
	if _, errOut, code := runCLI(t, "--root", ws.Root, "export", "--since", "1h", "--format", "prov", "-o", prov); code != ExitOK {
		t.Fatalf("prov: exit %d: %s", code, errOut)
	}
	f, _ := os.Open("../../ledger/testdata/prov-json-schema.json")
	sd, err := jsonschema.UnmarshalJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	_ = c.AddResource("prov.json", sd)
	schema, err := c.Compile("prov.json")
	if err != nil {
		t.Fatal(err)
	}
	pf, _ := os.Open(prov)
	inst, err := jsonschema.UnmarshalJSON(pf)
	pf.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("export --format prov is not PROV-JSON: %v", err)
	}
	warc := filepath.Join(dir, "w.warc.gz")
	out, errOut, code := runCLI(t, "--root", ws.Root, "export", "--since", "1h", "--format", "warc", "-o", warc, "--json")
	if code != ExitOK {
		t.Fatalf("warc: exit %d: %s", code, errOut)
	}
	var sum exportSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Snapshots != 3 {
		t.Fatalf("warc summary %s: want three web snapshots", out)
	}
	// The page as received (--format html) is a response; the Markdown
	// retrieve made of it (the body itself is not kept) a resource.
	wr, err := gowarc.NewWarcFileReader(warc, 0, gowarc.WithStrictValidation())
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for rec, err := range wr.Records() {
		if err != nil {
			t.Fatalf("gowarc: %v", err)
		}
		if v, err := rec.WarcRecord.ValidateDigest(); err != nil || len(v) > 0 {
			t.Fatalf("digest: %v %v", err, v)
		}
		types[rec.WarcRecord.Type().String()]++
		_ = rec.Close()
	}
	wr.Close()
	if types["response"] != 1 || types["resource"] != 2 || types["request"] != 1 || types["metadata"] != 4 {
		t.Errorf("WARC records %v", types)
	}
	// The bundle carries the web part, which archive tools read.
	bundle := filepath.Join(dir, "b.zip")
	if _, errOut, code := runCLI(t, "--root", ws.Root, "export", "--since", "1h", "-o", bundle); code != ExitOK {
		t.Fatalf("bundle: exit %d: %s", code, errOut)
	}
	zr, err := zip.OpenReader(bundle)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var inBundle []byte
	for _, zf := range zr.File {
		if zf.Name == ledger.BundleWARC {
			rc, _ := zf.Open()
			inBundle, _ = io.ReadAll(rc)
			rc.Close()
		}
	}
	standalone, _ := os.ReadFile(warc)
	if len(inBundle) == 0 || len(standalone) == 0 {
		t.Fatalf("web part: %d bytes in the bundle, %d standalone", len(inBundle), len(standalone))
	}
	rep, text, code := verifyBundleCLI(t, bundle)
	if code != ExitOK || len(rep.Citations) != 7 || rep.Summary[bundleVerified] != 7 {
		t.Fatalf("verify: exit %d\n%s", code, text)
	}
}
