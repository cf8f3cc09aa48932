package ledger

import (
	"archive/zip"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve/store"
	"golang.org/x/mod/sumdb/tlog"
)

// An evidence bundle is one zip file that carries what a reviewer needs to
// check a set of recorded results without the workspace or the store: the
// entries as recorded (every field the log's leaf covers), the snapshots
// they were extracted from, deduplicated by hash, the inclusion proof of
// each entry in the log, and the latest signed checkpoint with a
// consistency proof from it to the tree head the proofs are for.
// docs/ledger.md, "Evidence bundles", documents the layout.

// BundleFormat is the manifest's format line.
const BundleFormat = "retrieve-evidence-bundle/v1"

// Names inside a bundle. Nothing else is accepted.
const (
	BundleManifest   = "manifest.json"
	BundleCheckpoint = "checkpoint.note"
	BundleKey        = "key.pub"
	bundleEntries    = "entries/"
	bundleSnapshots  = "snapshots/sha256/"
	BundleWARC       = "web.warc.gz"
)

// Kinds of BundleError.
const (
	// BundleMalformed: not a bundle (truncated, not a zip, a manifest that
	// does not parse, a file the manifest names that is absent).
	BundleMalformed = "malformed"
	// BundleTooLarge: a file or the whole bundle is over a cap, or a file
	// expands more than the ratio cap allows (a zip bomb).
	BundleTooLarge = "too_large"
	// BundleUnsafe: an entry whose name escapes (.., absolute, backslash),
	// a symbolic link, a duplicate or unexpected name.
	BundleUnsafe = "unsafe"
	// BundleTampered: the contents do not prove what they claim (a swapped
	// snapshot, an edited entry, a forged checkpoint, a bad proof).
	BundleTampered = "tampered"
)

// BundleError says what in a bundle failed: its Kind, the file (Name) and why.
type BundleError struct {
	Kind   string `json:"kind"`
	Name   string `json:"name,omitempty"`
	Detail string `json:"detail"`
}

func (e *BundleError) Error() string {
	if e.Name == "" {
		return fmt.Sprintf("bundle %s: %s", e.Kind, e.Detail)
	}
	return fmt.Sprintf("bundle %s: %s: %s", e.Kind, e.Name, e.Detail)
}

func bundleErr(kind, name, format string, args ...any) *BundleError {
	return &BundleError{Kind: kind, Name: name, Detail: fmt.Sprintf(format, args...)}
}

// Manifest is manifest.json: what the bundle holds and the tree head its
// proofs are for.
type Manifest struct {
	Format    string           `json:"format"`
	Created   time.Time        `json:"created"`
	Producer  string           `json:"producer"`
	Selection string           `json:"selection"`
	Log       BundleLog        `json:"log"`
	Entries   []BundleEntry    `json:"entries"`
	Snapshots []BundleSnapshot `json:"snapshots"`
	// WARC names the WARC file of the web snapshots ("" when none).
	WARC string `json:"warc,omitempty"`
	// Notes say what the bundle cannot prove (no checkpoint, entries after it).
	Notes []string `json:"notes,omitempty"`
}

// BundleLog is the tree head the inclusion proofs are for, and how it
// relates to the signed checkpoint (checkpoint.note) when there is one.
type BundleLog struct {
	Size int64     `json:"size"`
	Root tlog.Hash `json:"root"`
	// Checkpoint is the text of checkpoint.note, for reading; the verifier
	// trusts only the signed note.
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	// Consistency proves that the checkpoint's tree is a prefix of this one.
	Consistency []tlog.Hash `json:"consistency,omitempty"`
}

// BundleEntry is one recorded entry: its position and leaf in the log, its
// inclusion proof at Log.Size, and the file that holds it.
type BundleEntry struct {
	ID        string      `json:"id"`
	Index     int64       `json:"index"`
	LeafHash  tlog.Hash   `json:"leaf_hash"`
	Proof     []tlog.Hash `json:"proof"`
	File      string      `json:"file"`
	Op        string      `json:"op"`
	Reference string      `json:"reference,omitempty"`
	Hash      string      `json:"hash,omitempty"`
	Snapshot  string      `json:"snapshot,omitempty"`
	Time      time.Time   `json:"time"`
}

// BundleSnapshot is one snapshot's file.
type BundleSnapshot struct {
	Hash string `json:"hash"`
	Size int64  `json:"size"`
	File string `json:"file"`
}

// entryFile is entries/<id>.json. The request and the result are kept as
// strings, byte for byte as recorded, since the leaf hashes those bytes.
type entryFile struct {
	ID             string `json:"id"`
	Time           string `json:"time"`
	Op             string `json:"op"`
	Target         string `json:"target"`
	Source         string `json:"source"`
	Reference      string `json:"reference"`
	Hash           string `json:"hash"`
	SourceHash     string `json:"source_hash"`
	Snapshot       string `json:"snapshot"`
	Status         string `json:"status"`
	Code           string `json:"code"`
	DurationNS     int64  `json:"duration_ns"`
	Request        string `json:"request"`
	Result         string `json:"result"`
	DataInSnapshot bool   `json:"data_in_snapshot"`
}

func toEntryFile(e *store.Entry) entryFile {
	return entryFile{ID: e.ID, Time: e.Time.UTC().Format(time.RFC3339Nano), Op: e.Op, Target: e.Target, Source: e.Source,
		Reference: e.Reference, Hash: e.Hash, SourceHash: e.SourceHash, Snapshot: e.Snapshot, Status: e.Status, Code: e.Code,
		DurationNS: int64(e.Duration), Request: string(e.Request), Result: string(e.Result), DataInSnapshot: e.DataInSnapshot}
}

func (f entryFile) entry() (*store.Entry, error) {
	t, err := time.Parse(time.RFC3339Nano, f.Time)
	if err != nil {
		return nil, fmt.Errorf("bad time %q", f.Time)
	}
	e := &store.Entry{ID: f.ID, Time: t, Op: f.Op, Target: f.Target, Source: f.Source, Reference: f.Reference, Hash: f.Hash,
		SourceHash: f.SourceHash, Snapshot: f.Snapshot, Status: f.Status, Code: f.Code, Duration: time.Duration(f.DurationNS),
		DataInSnapshot: f.DataInSnapshot}
	if f.Request != "" {
		e.Request = json.RawMessage(f.Request)
	}
	if f.Result != "" {
		e.Result = json.RawMessage(f.Result)
	}
	return e, nil
}

// BundleInput is what WriteBundle packs.
type BundleInput struct {
	// Entries are the selected entries; Leaves the whole log.
	Entries []*store.Entry
	Leaves  []Leaf
	// Snapshot opens a snapshot's bytes by hash.
	Snapshot func(ctx context.Context, hash string) (io.ReadCloser, error)
	// Note is a signed checkpoint of this log and Key the verifier key that
	// opens it; both empty when there is none.
	Note []byte
	Key  string
	// WARC, when set, writes the web part (web.warc.gz) to w: the caller
	// sets it when the entries have web snapshots.
	WARC                func(w io.Writer) error
	Producer, Selection string
	Now                 time.Time
}

// WriteBundle writes the bundle of in to w and returns its manifest. It
// refuses an entry that no longer hashes to its leaf, or a checkpoint that
// the log does not extend: a bundle never carries what fails audit.
func WriteBundle(ctx context.Context, w io.Writer, in BundleInput) (*Manifest, error) {
	hashes := make([]tlog.Hash, len(in.Leaves))
	pos := make(map[string]int64, len(in.Leaves))
	for i, l := range in.Leaves {
		hashes[i] = l.Hash
		pos[l.ID] = int64(i)
	}
	t, err := NewTree(hashes)
	if err != nil {
		return nil, err
	}
	m := &Manifest{Format: BundleFormat, Created: in.Now.UTC(), Producer: in.Producer, Selection: in.Selection,
		Entries: []BundleEntry{}, Snapshots: []BundleSnapshot{}}
	m.Log.Size = t.Size()
	if m.Log.Root, err = t.Root(t.Size()); err != nil {
		return nil, err
	}
	if err := m.anchor(t, in.Note, in.Key); err != nil {
		return nil, err
	}
	entries := append([]*store.Entry(nil), in.Entries...)
	sort.Slice(entries, func(i, j int) bool { return pos[entries[i].ID] < pos[entries[j].ID] })
	seen := map[string]bool{}
	var after int
	for _, e := range entries {
		i, ok := pos[e.ID]
		if !ok {
			return nil, fmt.Errorf("entry %s has no leaf in the log: run `retrieve ledger audit`", e.ID)
		}
		if LeafHash(i, e) != hashes[i] {
			return nil, fmt.Errorf("entry %s no longer hashes to its leaf %d: run `retrieve ledger audit`", e.ID, i)
		}
		if !safeID(e.ID) {
			return nil, fmt.Errorf("entry id %q cannot name a file", e.ID)
		}
		p, err := t.ProveInclusion(i, t.Size())
		if err != nil {
			return nil, err
		}
		m.Entries = append(m.Entries, BundleEntry{ID: e.ID, Index: i, LeafHash: hashes[i], Proof: append([]tlog.Hash{}, p...),
			File: bundleEntries + e.ID + ".json", Op: e.Op, Reference: e.Reference, Hash: e.Hash, Snapshot: e.Snapshot, Time: e.Time.UTC()})
		if m.Log.Checkpoint != nil && i >= m.Log.Checkpoint.Size {
			after++
		}
		if e.Snapshot != "" && !seen[e.Snapshot] {
			seen[e.Snapshot] = true
			hex, ok := strings.CutPrefix(e.Snapshot, "sha256:")
			if !ok || !isHex64(hex) {
				return nil, fmt.Errorf("entry %s names a bad snapshot %q", e.ID, e.Snapshot)
			}
			m.Snapshots = append(m.Snapshots, BundleSnapshot{Hash: e.Snapshot, File: bundleSnapshots + hex})
		}
	}
	if after > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("%d entries were appended after the checkpoint (size %d): their inclusion is proved against the bundle's unsigned tree head; sign a new checkpoint (`retrieve ledger checkpoint`) and export again to anchor them", after, m.Log.Checkpoint.Size))
	}
	if err := writeZip(ctx, w, m, entries, in); err != nil {
		return nil, err
	}
	return m, nil
}

// writeZip writes the bundle's files: snapshots, entries, checkpoint, the
// web part, and the manifest last (with the snapshots' sizes).
func writeZip(ctx context.Context, w io.Writer, m *Manifest, entries []*store.Entry, in BundleInput) error {
	zw := zip.NewWriter(w)
	// One deflater for every file (the zip writes them one at a time): a
	// new one allocates about a megabyte, which for 1,000 small entries
	// was most of an export's time.
	var fl *flate.Writer
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		if fl == nil {
			var err error
			fl, err = flate.NewWriter(out, flate.BestSpeed)
			return fl, err
		}
		fl.Reset(out)
		return fl, nil
	})
	fs, err := flate.NewWriter(io.Discard, flate.BestSpeed)
	if err != nil {
		return err
	}
	sample := &sampler{w: fs, buf: make([]byte, sampleSize)}
	// The snapshots go first so that their sizes are in the manifest,
	// which is written last (readers find files by the central directory).
	for i := range m.Snapshots {
		n, err := writeSnapshot(ctx, zw, sample, in.Snapshot, &m.Snapshots[i])
		if err != nil {
			return err
		}
		m.Snapshots[i].Size = n
	}
	for _, e := range entries {
		b, err := json.MarshalIndent(toEntryFile(e), "", "  ")
		if err != nil {
			return err
		}
		if err := writeFile(zw, bundleEntries+e.ID+".json", b, zip.Deflate); err != nil {
			return err
		}
	}
	if len(in.Note) > 0 {
		if err := writeFile(zw, BundleCheckpoint, in.Note, zip.Store); err != nil {
			return err
		}
		if err := writeFile(zw, BundleKey, []byte(strings.TrimSpace(in.Key)+"\n"), zip.Store); err != nil {
			return err
		}
	}
	if in.WARC != nil {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: BundleWARC, Method: zip.Store, Modified: in.Now})
		if err != nil {
			return err
		}
		if err := in.WARC(fw); err != nil {
			return err
		}
		m.WARC = BundleWARC
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFile(zw, BundleManifest, b, zip.Deflate); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return nil
}

// anchor records the signed checkpoint note (opened with key) and the
// consistency proof from it to the tree's head.
func (m *Manifest) anchor(t *Tree, note []byte, key string) error {
	if len(note) == 0 {
		m.Notes = append(m.Notes, "no signed checkpoint: the inclusion proofs are against the bundle's own tree head, which nothing signs; make a key (`retrieve ledger keygen`) and export with --key")
		return nil
	}
	c, err := Open(note, key)
	if err != nil {
		return err
	}
	if c.Size > t.Size() {
		return fmt.Errorf("%w: the checkpoint has %d leaves, the log %d: run `retrieve ledger audit`", ErrBadCheckpoint, c.Size, t.Size())
	}
	root, err := t.Root(c.Size)
	if err != nil {
		return err
	}
	if root != c.Root {
		return fmt.Errorf("%w: the log's first %d leaves do not hash to the checkpoint's root: run `retrieve ledger audit`", ErrBadCheckpoint, c.Size)
	}
	m.Log.Checkpoint = &c
	if c.Size < t.Size() && c.Size > 0 {
		p, err := t.ProveConsistency(c.Size, t.Size())
		if err != nil {
			return err
		}
		m.Log.Consistency = append([]tlog.Hash{}, p...)
	}
	return nil
}

// sampleSize is how much of a snapshot is compressed to decide whether
// compressing it pays (saves a tenth or more).
const sampleSize = 1 << 20

// sampler decides whether compressing a snapshot pays, from its head.
type sampler struct {
	w   *flate.Writer
	buf []byte
}

func writeSnapshot(ctx context.Context, zw *zip.Writer, sample *sampler, open func(context.Context, string) (io.ReadCloser, error), s *BundleSnapshot) (int64, error) {
	rc, err := open(ctx, s.Hash)
	if err != nil {
		return 0, fmt.Errorf("snapshot %s: %w", s.Hash, err)
	}
	defer rc.Close()
	head := sample.buf
	n, err := io.ReadFull(rc, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return 0, fmt.Errorf("snapshot %s: %w", s.Hash, err)
	}
	head = head[:n]
	method := zip.Store
	var c countWriter
	sample.w.Reset(&c)
	_, _ = sample.w.Write(head)
	_ = sample.w.Close()
	if c.n <= int64(len(head))*9/10 {
		method = zip.Deflate
	}
	fw, err := zw.CreateHeader(&zip.FileHeader{Name: s.File, Method: method, Modified: time.Unix(0, 0).UTC()})
	if err != nil {
		return 0, err
	}
	h := sha256.New()
	w := io.MultiWriter(fw, h)
	if _, err := w.Write(head); err != nil {
		return 0, err
	}
	m, err := io.Copy(w, rc)
	if err != nil {
		return 0, fmt.Errorf("snapshot %s: %w", s.Hash, err)
	}
	if got := "sha256:" + hex.EncodeToString(h.Sum(nil)); got != s.Hash {
		return 0, fmt.Errorf("snapshot %s: the store gave bytes that hash to %s", s.Hash, got)
	}
	return int64(n) + m, nil
}

// countWriter counts what is written to it.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func writeFile(zw *zip.Writer, name string, b []byte, method uint16) error {
	fw, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: time.Unix(0, 0).UTC()})
	if err == nil {
		_, err = fw.Write(b)
	}
	return err
}

// Limits cap what OpenBundle reads.
type Limits struct {
	// MaxFiles caps the files in the zip.
	MaxFiles int
	// MaxFileSize caps one file's uncompressed size, MaxTotal the sum.
	MaxFileSize, MaxTotal int64
	// MaxMeta caps the manifest, an entry file, the checkpoint and key.
	MaxMeta int64
	// MaxRatio caps uncompressed/compressed size of a file over 1 MiB.
	// Deflate cannot expand more than 1,032-fold, so the default refuses
	// only a file whose sizes lie; the size caps bound a real bomb's work.
	MaxRatio int64
}

// DefaultLimits are the caps of `retrieve verify --bundle`.
func DefaultLimits() Limits {
	return Limits{MaxFiles: 1 << 20, MaxFileSize: 4 << 30, MaxTotal: 16 << 30, MaxMeta: 64 << 20, MaxRatio: 1100}
}

// Bundle is an opened bundle: the manifest and the entries are read and
// checked for shape; snapshots are read when asked for.
type Bundle struct {
	Manifest Manifest
	// Entries by id, as recorded.
	Entries map[string]*store.Entry
	// Note and Key are checkpoint.note and key.pub (empty when absent).
	Note []byte
	Key  string
	lim  Limits
	fs   map[string]*zip.File
}

// OpenBundle reads the bundle of size bytes in r. Every file name is
// checked before anything is read; nothing is written anywhere.
func OpenBundle(r io.ReaderAt, size int64, lim Limits) (*Bundle, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, bundleErr(BundleMalformed, "", "not a readable zip (truncated or not a bundle): %v", err)
	}
	if len(zr.File) > lim.MaxFiles {
		return nil, bundleErr(BundleTooLarge, "", "%d files, over the cap of %d", len(zr.File), lim.MaxFiles)
	}
	b := &Bundle{Entries: map[string]*store.Entry{}, lim: lim, fs: make(map[string]*zip.File, len(zr.File))}
	var total uint64
	for _, f := range zr.File {
		if err := checkName(f); err != nil {
			return nil, err
		}
		if b.fs[f.Name] != nil {
			return nil, bundleErr(BundleUnsafe, f.Name, "the name is in the zip twice")
		}
		b.fs[f.Name] = f
		if f.UncompressedSize64 > uint64(lim.MaxFileSize) {
			return nil, bundleErr(BundleTooLarge, f.Name, "%d bytes uncompressed, over the cap of %d", f.UncompressedSize64, lim.MaxFileSize)
		}
		if f.UncompressedSize64 > 1<<20 && f.UncompressedSize64 > f.CompressedSize64*uint64(lim.MaxRatio) {
			return nil, bundleErr(BundleTooLarge, f.Name, "expands %d-fold (%d to %d bytes), over the cap of %d: a zip bomb", f.UncompressedSize64/max(f.CompressedSize64, 1), f.CompressedSize64, f.UncompressedSize64, lim.MaxRatio)
		}
		if total += f.UncompressedSize64; total > uint64(lim.MaxTotal) {
			return nil, bundleErr(BundleTooLarge, "", "over %d bytes uncompressed in all", lim.MaxTotal)
		}
	}
	mb, err := b.readMeta(BundleManifest)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(mb, &b.Manifest); err != nil {
		return nil, bundleErr(BundleMalformed, BundleManifest, "does not parse: %v", err)
	}
	if b.Manifest.Format != BundleFormat {
		return nil, bundleErr(BundleMalformed, BundleManifest, "format %q, not %q", b.Manifest.Format, BundleFormat)
	}
	if err := b.readEntries(); err != nil {
		return nil, err
	}
	if b.fs[BundleCheckpoint] != nil {
		if b.Note, err = b.readMeta(BundleCheckpoint); err != nil {
			return nil, err
		}
		k, err := b.readMeta(BundleKey)
		if err != nil {
			return nil, err
		}
		b.Key = strings.TrimSpace(string(k))
	}
	return b, nil
}

// checkName refuses a file whose name could escape a directory it was
// extracted to, a link, or a name the format does not have.
func checkName(f *zip.File) error {
	n := f.Name
	switch {
	case strings.HasPrefix(n, "/") || strings.Contains(n, "\\") || (len(n) > 1 && n[1] == ':'):
		return bundleErr(BundleUnsafe, n, "an absolute path")
	case n == ".." || strings.HasPrefix(n, "../") || strings.Contains(n, "/../") || strings.HasSuffix(n, "/.."):
		return bundleErr(BundleUnsafe, n, "the path escapes the bundle (..)")
	case f.Mode()&^0o777 != 0 && !f.Mode().IsRegular():
		return bundleErr(BundleUnsafe, n, "not a regular file (%s): links and devices are refused", f.Mode().Type())
	}
	switch {
	case n == BundleManifest || n == BundleCheckpoint || n == BundleKey || n == BundleWARC:
		return nil
	case strings.HasPrefix(n, bundleEntries) && strings.HasSuffix(n, ".json") && safeID(strings.TrimSuffix(strings.TrimPrefix(n, bundleEntries), ".json")):
		return nil
	case strings.HasPrefix(n, bundleSnapshots) && isHex64(strings.TrimPrefix(n, bundleSnapshots)):
		return nil
	}
	return bundleErr(BundleUnsafe, n, "not a name a bundle has")
}

func safeID(s string) bool {
	if s == "" || len(s) > 128 || s == "." || s == ".." {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// readMeta reads a small file whole, within MaxMeta.
func (b *Bundle) readMeta(name string) ([]byte, error) {
	f := b.fs[name]
	if f == nil {
		return nil, bundleErr(BundleMalformed, name, "missing")
	}
	if f.UncompressedSize64 > uint64(b.lim.MaxMeta) {
		return nil, bundleErr(BundleTooLarge, name, "%d bytes, over the cap of %d", f.UncompressedSize64, b.lim.MaxMeta)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, bundleErr(BundleMalformed, name, "cannot be read: %v", err)
	}
	defer rc.Close()
	out, err := io.ReadAll(io.LimitReader(rc, b.lim.MaxMeta+1))
	if err != nil {
		return nil, bundleErr(BundleMalformed, name, "cannot be read: %v", err)
	}
	if int64(len(out)) > b.lim.MaxMeta {
		return nil, bundleErr(BundleTooLarge, name, "over the cap of %d bytes", b.lim.MaxMeta)
	}
	return out, nil
}

func (b *Bundle) readEntries() error {
	m := &b.Manifest
	for _, be := range m.Entries {
		want := bundleEntries + be.ID + ".json"
		if be.File != want || !safeID(be.ID) {
			return bundleErr(BundleMalformed, BundleManifest, "entry %q names the file %q, not %q", be.ID, be.File, want)
		}
		if b.Entries[be.ID] != nil {
			return bundleErr(BundleUnsafe, BundleManifest, "entry %s is listed twice", be.ID)
		}
		raw, err := b.readMeta(be.File)
		if err != nil {
			return err
		}
		var f entryFile
		if err := json.Unmarshal(raw, &f); err != nil {
			return bundleErr(BundleMalformed, be.File, "does not parse: %v", err)
		}
		e, err := f.entry()
		if err != nil {
			return bundleErr(BundleMalformed, be.File, "%v", err)
		}
		if e.ID != be.ID {
			return bundleErr(BundleTampered, be.File, "holds entry %s, the manifest says %s", e.ID, be.ID)
		}
		b.Entries[be.ID] = e
	}
	for _, s := range m.Snapshots {
		hex, _ := strings.CutPrefix(s.Hash, "sha256:")
		if s.File != bundleSnapshots+hex || !isHex64(hex) {
			return bundleErr(BundleMalformed, BundleManifest, "snapshot %q names the file %q", s.Hash, s.File)
		}
		if b.fs[s.File] == nil {
			return bundleErr(BundleMalformed, s.File, "missing (the manifest lists it)")
		}
	}
	return nil
}

// OpenSnapshot returns a snapshot's bytes; the reader fails at the end
// when they do not hash to hash, so no caller takes swapped bytes.
func (b *Bundle) OpenSnapshot(ctx context.Context, hash string) (io.ReadCloser, error) {
	hex, _ := strings.CutPrefix(hash, "sha256:")
	f := b.fs[bundleSnapshots+hex]
	if f == nil || !isHex64(hex) {
		return nil, bundleErr(BundleMalformed, bundleSnapshots+hex, "the bundle does not carry snapshot %s", hash)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, bundleErr(BundleMalformed, f.Name, "cannot be read: %v", err)
	}
	return &hashReader{r: io.LimitReader(rc, b.lim.MaxFileSize+1), c: rc, h: sha256.New(), want: hash, name: f.Name}, nil
}

// HasSnapshot reports whether the bundle carries hash.
func (b *Bundle) HasSnapshot(ctx context.Context, hash string) (bool, error) {
	hex, _ := strings.CutPrefix(hash, "sha256:")
	return b.fs[bundleSnapshots+hex] != nil, nil
}

// errReadOnly refuses writes: a bundle is read, never changed.
var errReadOnly = errors.New("an evidence bundle is read-only")

// PutSnapshot refuses: a bundle is read-only.
func (b *Bundle) PutSnapshot(context.Context, string, io.Reader) error { return errReadOnly }

// DeleteUnreferencedSnapshots refuses: a bundle is read-only.
func (b *Bundle) DeleteUnreferencedSnapshots(context.Context) (int, error) { return 0, errReadOnly }

// OpenWARC returns the web part, or nil when the bundle has none.
func (b *Bundle) OpenWARC() (io.ReadCloser, error) {
	f := b.fs[BundleWARC]
	if f == nil || b.Manifest.WARC == "" {
		return nil, nil
	}
	return f.Open()
}

type hashReader struct {
	r          io.Reader
	c          io.Closer
	h          hash.Hash
	want, name string
}

func (h *hashReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.h.Write(p[:n])
	if err == io.EOF {
		if got := "sha256:" + hex.EncodeToString(h.h.Sum(nil)); got != h.want {
			return n, bundleErr(BundleTampered, h.name, "the bytes hash to %s, not %s: the snapshot was swapped", got, h.want)
		}
	}
	return n, err
}

func (h *hashReader) Close() error { return h.c.Close() }
