package ledger_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
	"golang.org/x/mod/sumdb/tlog"
)

// bundleFixture is a log of n entries, every third without a snapshot,
// over a few snapshots, and a key.
type bundleFixture struct {
	entries []*store.Entry
	leaves  []ledger.Leaf
	snaps   map[string][]byte
	private string
	public  string
}

func newBundleFixture(t testing.TB, n, files int) *bundleFixture {
	f := &bundleFixture{entries: entries(n), snaps: map[string][]byte{}}
	for i := 0; i < files; i++ {
		b := []byte(strings.Repeat(fmt.Sprintf("line %d of file %d\n", i, i), 50+i))
		s := sha256.Sum256(b)
		f.snaps["sha256:"+hex.EncodeToString(s[:])] = b
	}
	var hashes []string
	for h := range f.snaps {
		hashes = append(hashes, h)
	}
	for i, e := range f.entries {
		if i%3 != 2 && files > 0 {
			e.Snapshot, e.SourceHash, e.DataInSnapshot = hashes[i%len(hashes)], hashes[i%len(hashes)], true
		}
	}
	f.leaves = leavesOf(f.entries)
	var err error
	if f.private, f.public, err = ledger.GenerateKey("test-log"); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *bundleFixture) note(t testing.TB, size int) []byte {
	hs := make([]tlog.Hash, size)
	for i := range hs {
		hs[i] = f.leaves[i].Hash
	}
	tree, err := ledger.NewTree(hs)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := tree.Root(int64(size))
	msg, _, err := ledger.Sign(ledger.Checkpoint{Size: int64(size), Root: root, Time: time.Now()}, f.private)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

func (f *bundleFixture) write(t testing.TB, sel []*store.Entry, note []byte) []byte {
	var buf bytes.Buffer
	in := ledger.BundleInput{Entries: sel, Leaves: f.leaves, Note: note, Key: f.public, Producer: "test", Selection: "test", Now: time.Now(),
		Snapshot: func(_ context.Context, h string) (io.ReadCloser, error) {
			b, ok := f.snaps[h]
			if !ok {
				return nil, errors.New("no such snapshot")
			}
			return io.NopCloser(bytes.NewReader(b)), nil
		}}
	if _, err := ledger.WriteBundle(context.Background(), &buf, in); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func open(t testing.TB, b []byte) (*ledger.Bundle, error) {
	t.Helper()
	return ledger.OpenBundle(bytes.NewReader(b), int64(len(b)), ledger.DefaultLimits())
}

func TestBundleRoundTrip(t *testing.T) {
	f := newBundleFixture(t, 20, 4)
	raw := f.write(t, f.entries[3:15], f.note(t, 10))
	b, err := open(t, raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Manifest.Snapshots) != 4 {
		t.Errorf("%d snapshots, want 4 (deduplicated)", len(b.Manifest.Snapshots))
	}
	v := b.Verify(context.Background(), f.public)
	if v.Checkpoint.Signature != ledger.CheckOK || v.Checkpoint.Consistency != ledger.CheckOK || v.Checkpoint.KeySource != "given" {
		t.Fatalf("checkpoint: %+v", v.Checkpoint)
	}
	if len(v.Entries) != 12 {
		t.Fatalf("%d entries, want 12", len(v.Entries))
	}
	for _, c := range v.Entries {
		if c.Failed() {
			t.Errorf("%s: %v", c.ID, c.Problems[0])
		}
		want := ledger.AnchorSigned
		if c.Index >= 10 {
			want = ledger.AnchorAfter
		}
		if c.Anchor != want {
			t.Errorf("%s at %d: anchor %s, want %s", c.ID, c.Index, c.Anchor, want)
		}
	}
	// Without the verifier's key the bundle's own key is used, and said so.
	if v := b.Verify(context.Background(), ""); v.Entries[0].Anchor != ledger.AnchorBundleKey {
		t.Errorf("anchor without --key: %s", v.Entries[0].Anchor)
	}
	// No checkpoint: every entry is unsigned, and the manifest says why.
	b, err = open(t, f.write(t, f.entries, nil))
	if err != nil {
		t.Fatal(err)
	}
	if v := b.Verify(context.Background(), ""); v.Entries[0].Anchor != ledger.AnchorUnsigned || len(v.Notes) == 0 {
		t.Errorf("no checkpoint: anchor %s, notes %v", v.Entries[0].Anchor, v.Notes)
	}
}

// rezip copies a bundle, letting edit change (or drop, returning nil) each file.
func rezip(t testing.TB, raw []byte, edit func(name string, b []byte) []byte) []byte {
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		if b = edit(f.Name, b); b == nil {
			continue
		}
		w, _ := zw.Create(f.Name)
		w.Write(b)
	}
	zw.Close()
	return out.Bytes()
}

func TestBundleTamperingIsNamed(t *testing.T) {
	f := newBundleFixture(t, 9, 3)
	raw := f.write(t, f.entries, f.note(t, 9))
	someSnap := "snapshots/sha256/" + strings.TrimPrefix(f.entries[0].Snapshot, "sha256:")
	other, _, _ := ledger.GenerateKey("forger")
	cases := []struct {
		name string
		edit func(n string, b []byte) []byte
		want string // a problem's file, or "checkpoint"
	}{
		{"SwappedSnapshot", func(n string, b []byte) []byte {
			if n == someSnap {
				return []byte("other bytes")
			}
			return b
		}, someSnap},
		{"EditedResult", func(n string, b []byte) []byte {
			if n == "entries/"+f.entries[4].ID+".json" {
				return bytes.Replace(b, []byte(`{\"n\":4}`), []byte(`{\"n\":5}`), 1)
			}
			return b
		}, "entries/" + f.entries[4].ID + ".json"},
		{"ForgedCheckpoint", func(n string, b []byte) []byte {
			if n == "checkpoint.note" {
				msg, _, _ := ledger.Sign(ledger.Checkpoint{Size: 9, Root: tlog.Hash{1}, Time: time.Now()}, other)
				return msg
			}
			return b
		}, "checkpoint"},
		{"EditedCheckpointText", func(n string, b []byte) []byte {
			if n == "checkpoint.note" {
				return bytes.Replace(b, []byte("\n9\n"), []byte("\n8\n"), 1)
			}
			return b
		}, "checkpoint"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := open(t, rezip(t, raw, tc.edit))
			if err != nil {
				t.Fatal(err)
			}
			v := b.Verify(context.Background(), f.public)
			if tc.want == "checkpoint" {
				if v.Checkpoint.Signature != ledger.CheckFail || v.Checkpoint.Problem == nil || v.Checkpoint.Problem.Kind != ledger.BundleTampered {
					t.Fatalf("checkpoint: %+v", v.Checkpoint)
				}
				if v.Entries[0].Anchor != ledger.AnchorUnsigned {
					t.Errorf("a forged checkpoint still anchors: %s", v.Entries[0].Anchor)
				}
				return
			}
			var named bool
			for _, c := range v.Entries {
				for _, p := range c.Problems {
					named = named || (p.Name == tc.want && p.Kind == ledger.BundleTampered)
				}
			}
			if !named {
				t.Errorf("no tampered problem names %s: %+v", tc.want, v.Entries)
			}
		})
	}
}

func TestBundleRefusesUnsafeAndBroken(t *testing.T) {
	f := newBundleFixture(t, 4, 2)
	raw := f.write(t, f.entries, nil)
	withFile := func(name string, mode os.FileMode) []byte { return withExtra(raw, name, []byte("/etc/passwd"), mode) }
	cases := map[string]struct {
		raw  []byte
		kind string
	}{
		"Truncated":    {raw[:len(raw)/2], ledger.BundleMalformed},
		"NotAZip":      {[]byte("hello"), ledger.BundleMalformed},
		"DotDot":       {withFile("../evil", 0), ledger.BundleUnsafe},
		"DotDotInside": {withFile("entries/../../evil", 0), ledger.BundleUnsafe},
		"Absolute":     {withFile("/tmp/evil", 0), ledger.BundleUnsafe},
		"Backslash":    {withFile(`..\evil`, 0), ledger.BundleUnsafe},
		"Symlink":      {withFile("entries/link.json", os.ModeSymlink|0o777), ledger.BundleUnsafe},
		"Duplicate":    {withFile("manifest.json", 0), ledger.BundleUnsafe},
		"Unexpected":   {withFile("extra.txt", 0), ledger.BundleUnsafe},
		"NoManifest": {rezip(t, raw, func(n string, b []byte) []byte {
			if n == "manifest.json" {
				return nil
			}
			return b
		}), ledger.BundleMalformed},
		"MissingSnapshot": {rezip(t, raw, func(n string, b []byte) []byte {
			if strings.HasPrefix(n, "snapshots/") {
				return nil
			}
			return b
		}), ledger.BundleMalformed},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := open(t, tc.raw)
			var be *ledger.BundleError
			if !errors.As(err, &be) || be.Kind != tc.kind {
				t.Fatalf("got %v, want a %s bundle error", err, tc.kind)
			}
		})
	}
}

// withExtra copies a bundle as it is (raw entries) and adds one file.
func withExtra(raw []byte, name string, data []byte, mode os.FileMode) []byte {
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	zr, _ := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	for _, zf := range zr.File {
		w, _ := zw.CreateRaw(&zf.FileHeader)
		r, _ := zf.OpenRaw()
		io.Copy(w, r)
	}
	h := &zip.FileHeader{Name: name, Method: zip.Deflate}
	if mode != 0 {
		h.SetMode(mode)
	}
	w, _ := zw.CreateHeader(h)
	w.Write(data)
	zw.Close()
	return out.Bytes()
}

func TestBundleZipBomb(t *testing.T) {
	f := newBundleFixture(t, 1, 0)
	raw := f.write(t, f.entries, nil)
	big := make([]byte, 8<<20) // zeros: deflate shrinks them ~1000-fold
	bomb := withExtra(raw, "snapshots/sha256/"+strings.Repeat("0", 64), big, 0)
	for name, lim := range map[string]func(*ledger.Limits){
		"Ratio":    func(l *ledger.Limits) { l.MaxRatio = 100 },
		"FileSize": func(l *ledger.Limits) { l.MaxFileSize = 4 << 20 },
		"Total":    func(l *ledger.Limits) { l.MaxTotal = 4 << 20 },
		"Files":    func(l *ledger.Limits) { l.MaxFiles = 2 },
	} {
		t.Run(name, func(t *testing.T) {
			l := ledger.DefaultLimits()
			lim(&l)
			_, err := ledger.OpenBundle(bytes.NewReader(bomb), int64(len(bomb)), l)
			var be *ledger.BundleError
			if !errors.As(err, &be) || be.Kind != ledger.BundleTooLarge {
				t.Fatalf("got %v, want too_large", err)
			}
		})
	}
	if _, err := ledger.OpenBundle(bytes.NewReader(bomb), int64(len(bomb)), ledger.DefaultLimits()); err != nil {
		t.Fatalf("8 MiB of zeros under the default caps: %v", err)
	}
}

func TestBundleExportRefusesWhatFailsAudit(t *testing.T) {
	f := newBundleFixture(t, 5, 1)
	edited := *f.entries[2]
	edited.Result = json.RawMessage(`{"n":99}`)
	var buf bytes.Buffer
	_, err := ledger.WriteBundle(context.Background(), &buf, ledger.BundleInput{Entries: []*store.Entry{&edited}, Leaves: f.leaves,
		Snapshot: func(context.Context, string) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("")), nil }})
	if err == nil || !strings.Contains(err.Error(), "no longer hashes to its leaf") {
		t.Errorf("edited entry exported: %v", err)
	}
}

func FuzzOpenBundle(f *testing.F) {
	fx := newBundleFixture(f, 6, 2)
	raw := fx.write(f, fx.entries, fx.note(f, 6))
	f.Add(raw)
	f.Add(raw[:len(raw)-10])
	_, web := webFixture(f) // with a web part
	f.Add(web)
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	lim := ledger.DefaultLimits()
	lim.MaxTotal, lim.MaxFileSize = 1<<20, 1<<20
	f.Fuzz(func(t *testing.T, b []byte) {
		bun, err := ledger.OpenBundle(bytes.NewReader(b), int64(len(b)), lim)
		if err != nil {
			var be *ledger.BundleError
			if !errors.As(err, &be) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		v := bun.Verify(context.Background(), fx.public)
		if len(v.Entries) != len(bun.Manifest.Entries) {
			t.Fatalf("%d checks for %d entries", len(v.Entries), len(bun.Manifest.Entries))
		}
	})
}

func hashHex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
