package sqlite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/storetest"
)

// openJournaled opens a store with the journal on, folding after delay
// (foldIdle and foldMax when 0).
func openJournaled(t *testing.T, path string, delay time.Duration) *Store {
	t.Helper()
	s, err := OpenStore(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if delay == 0 {
		s.StartJournal()
	} else {
		s.startJournal(delay, delay)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The store with the journal on passes the whole conformance suite.
func TestJournalConformance(t *testing.T) {
	if !canLock {
		t.Skip("no flock on this platform: the journal is off")
	}
	storetest.Run(t, func(t *testing.T) store.Store {
		return openJournaled(t, filepath.Join(t.TempDir(), ".retrieve", "retrieve.db"), 0)
	})
}

func journalEntry(target string) *store.Entry {
	return &store.Entry{ID: retrieve.NewID(), Time: time.Date(2026, 11, 24, 12, 0, 0, 123456789, time.UTC), Op: "get", Target: target, Source: "file",
		Reference: target + ":1-2", Hash: "sha256:aa", SourceHash: "sha256:bb", Snapshot: "", Status: store.StatusOK, Code: "",
		Duration: 1500 * time.Microsecond, Request: json.RawMessage(`{"target":"` + target + `"}`), Result: json.RawMessage(`{"ok":true}`), DataInSnapshot: true}
}

// countRows reads the ledger table directly, without folding the journal.
func countRows(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM ledger`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// An acknowledged entry is in the journal file before it is in the table,
// and another handle on the store (as another process would be) sees it at
// once: its read folds the live journal, which stays with its owner.
func TestJournalVisibleToOtherReaders(t *testing.T) {
	if !canLock {
		t.Skip("no flock on this platform")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "retrieve.db")
	w := openJournaled(t, path, time.Hour) // no background fold in this test
	r, err := OpenStore(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	e := journalEntry("a.md")
	if err := w.Append(ctx, e); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, r); n != 0 {
		t.Fatalf("the append was committed at once (%d rows): the journal is not in use", n)
	}
	got, err := r.Entry(ctx, e.ID)
	if err != nil {
		t.Fatalf("another handle does not see the acknowledged entry: %v", err)
	}
	want := *e
	if !got.Time.Equal(want.Time) || got.Duration != want.Duration || got.Reference != want.Reference || !got.DataInSnapshot ||
		string(got.Request) != string(want.Request) || string(got.Result) != string(want.Result) || got.SourceHash != want.SourceHash {
		t.Fatalf("entry read back = %+v, want %+v", got, want)
	}
	files, _ := filepath.Glob(filepath.Join(path+"-pending", "*"+journalExt))
	if len(files) != 1 {
		t.Fatalf("journal files after another handle's read = %v, want the owner's one, kept", files)
	}
	// The owner's own fold removes its file; a duplicate id is refused
	// from the journal as from the table.
	if err := w.Append(ctx, e); err == nil {
		t.Fatal("a duplicate id was accepted")
	}
	if _, err := w.Entries(ctx, store.Filter{}); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(path+"-pending", "*"+journalExt)); len(files) != 0 {
		t.Fatalf("journal files after the owner's fold = %v, want none", files)
	}
	if n := countRows(t, r); n != 1 {
		t.Fatalf("rows = %d, want 1", n)
	}
}

// The background fold commits appends without a reader asking.
func TestJournalBackgroundFold(t *testing.T) {
	if !canLock {
		t.Skip("no flock on this platform")
	}
	ctx := context.Background()
	s := openJournaled(t, filepath.Join(t.TempDir(), "retrieve.db"), 0)
	for i := range 5 {
		if err := s.Append(ctx, journalEntry(strings.Repeat("x", i+1))); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for countRows(t, s) != 5 {
		if time.Now().After(deadline) {
			t.Fatalf("rows = %d after 10 s, want 5", countRows(t, s))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// storeKey opens the store at path once to make its journal key, and
// returns it.
func storeKey(t *testing.T, path string) []byte {
	t.Helper()
	s, err := OpenStore(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k, err := s.journalKey(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// A journal left by a killed process (no lock held) is folded by the next
// reader up to its torn last record, then removed; an empty .new- file is
// dropped.
func TestJournalOrphanTornTail(t *testing.T) {
	if !canLock {
		t.Skip("no flock on this platform")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "retrieve.db")
	key := storeKey(t, path)
	dir := path + "-pending"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	a, b, c := journalEntry("a.md"), journalEntry("b.md"), journalEntry("c.md")
	rec := append(encodeEntry(key, a), encodeEntry(key, b)...)
	torn := encodeEntry(key, c)
	rec = append(rec, torn[:len(torn)-3]...)
	name := filepath.Join(dir, "00000000000000000001-x"+journalExt)
	if err := os.WriteFile(name, rec, 0o600); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, journalNew+"y")
	if err := os.WriteFile(stale, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stale, old, old)
	s, err := OpenStore(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	es, err := s.Entries(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].ID != b.ID || es[1].ID != a.ID {
		t.Fatalf("entries = %d, want a and b (the torn c was never acknowledged)", len(es))
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("journal directory after the fold holds %v, want nothing", left)
	}
}

// A damaged record does not drop the good records after it; decoding
// never panics on garbage.
func TestJournalDecodeDamaged(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	a, b, c := journalEntry("a.md"), journalEntry("b.md"), journalEntry("c.md")
	ra, rb, rc := encodeEntry(key, a), encodeEntry(key, b), encodeEntry(key, c)
	rs := encodeSnapshot(key, "sha256:"+strings.Repeat("ab", 32), []byte("bytes"))
	rb[len(rb)-1] ^= 0xff
	recs, rep := decodeRecords(key, append(append(append(append([]byte(nil), ra...), rs...), rb...), rc...))
	if len(recs) != 3 || recs[0].e == nil || recs[0].e.ID != a.ID || recs[1].e != nil || string(recs[1].data) != "bytes" || recs[2].e == nil || recs[2].e.ID != c.ID || rep.damaged != 1 {
		t.Fatalf("decoded %d records, %+v; want a, the snapshot and c, one damaged span", len(recs), rep)
	}
	for i := range len(ra) {
		decodeRecords(key, ra[:i])
	}
	if recs, rep := decodeRecords(key, []byte{255, 255, 255, 255, 0, 0, 0, 0}); len(recs) != 0 || !rep.torn {
		t.Fatal("a huge length was not refused")
	}
	if recs, rep := decodeRecords(key, encodeSnapshot(key, "sha256:not-a-hash", nil)); len(recs) != 0 || !rep.torn {
		t.Fatal("a snapshot record with a bad hash was taken")
	}
}

// In serve, a small snapshot waits in the journal with its entry: the
// store says it has it, another handle reads it (its read folds the
// journal), and both land in one fold.
func TestJournalSmallSnapshot(t *testing.T) {
	if !canLock {
		t.Skip("no flock on this platform")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "retrieve.db")
	w := openJournaled(t, path, time.Hour)
	body := []byte(strings.Repeat("a line of a small file\n", 40))
	hash := hashOf(body)
	st, err := w.StageSnapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.Write(body)
	if err := st.Commit(ctx, hash); err != nil {
		t.Fatal(err)
	}
	e := journalEntry("small.md")
	e.Snapshot = hash
	if err := w.Append(ctx, e); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := w.db.QueryRow(`SELECT count(*) FROM snapshots`).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("snapshot rows before the fold = %d (%v), want 0: the snapshot did not go to the journal", rows, err)
	}
	if has, err := w.HasSnapshot(ctx, hash); err != nil || !has {
		t.Fatalf("HasSnapshot of a journaled snapshot = %v, %v", has, err)
	}
	r, err := OpenStore(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rc, err := r.OpenSnapshot(ctx, hash)
	if err != nil {
		t.Fatalf("another handle cannot open the journaled snapshot: %v", err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(got) != string(body) {
		t.Fatalf("snapshot read back = %q, %v", got, err)
	}
	if got, err := r.Entry(ctx, e.ID); err != nil || got.Snapshot != hash {
		t.Fatalf("entry = %+v, %v", got, err)
	}
}

// A reused id is refused whether it waits in the journal, was folded, or
// was in the table before the journal started.
func TestJournalDuplicate(t *testing.T) {
	if !canLock {
		t.Skip("no flock on this platform")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "retrieve.db")
	before := journalEntry("before.md")
	{
		s, err := OpenStore(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, before); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	s := openJournaled(t, path, time.Hour)
	e := journalEntry("a.md")
	if err := s.Append(ctx, e); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, e); err == nil {
		t.Fatal("an id waiting in the journal was accepted again")
	}
	if _, err := s.Entries(ctx, store.Filter{}); err != nil { // folds
		t.Fatal(err)
	}
	if err := s.Append(ctx, e); err == nil {
		t.Fatal("a folded id was accepted again")
	}
	if err := s.Append(ctx, before); err == nil {
		t.Fatal("an id of the table from before the journal started was accepted again")
	}
	if n := countRows(t, s); n != 2 {
		t.Fatalf("rows = %d, want 2", n)
	}
}

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// TestJournalRecordAllocs: encoding a journal record allocates the record
// only (its MAC reuses a pooled HMAC: keying a new one per record cost
// two SHA-256 states and the key's pads, issue #31.2), and a record still
// decodes under its key and not under another.
func TestJournalRecordAllocs(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	e := &store.Entry{ID: "0190a0b0-0000-7000-8000-000000000001", Op: "retrieve", Target: "f1.txt", Source: "file",
		Reference: "f1.txt#L1-L20", Hash: "sha256:ab", Status: store.StatusOK, Time: time.Unix(1700000000, 5).UTC(),
		Request: []byte(`{"target":"f1.txt"}`), Result: []byte(`{"citation":{}}`)}
	encodeEntry(key, e) // the pool's first state
	if n := testing.AllocsPerRun(200, func() { encodeEntry(key, e) }); n > 1 && !raceEnabled {
		t.Errorf("encodeEntry: %.1f allocations a record, want 1 (the record)", n)
	}
	rec := encodeEntry(key, e)
	if r, _, st := decodeOne(key, rec); st != recGood || r.e == nil || r.e.ID != e.ID || r.e.Reference != e.Reference {
		t.Fatalf("decode under its key: status %d, entry %+v", st, r.e)
	}
	other := bytes.Repeat([]byte{8}, 32)
	if _, _, st := decodeOne(other, rec); st != recForged {
		t.Fatalf("decode under another key: status %d, want forged", st)
	}
	// The other key took a pooled state: the first key verifies again.
	if _, _, st := decodeOne(key, encodeEntry(key, e)); st != recGood {
		t.Fatalf("decode under its key after another: status %d", st)
	}
}

// BenchmarkJournalRecord is one journal record's encoding (with its MAC)
// and its check on the fold: the per-record MAC work of an append.
func BenchmarkJournalRecord(b *testing.B) {
	key := bytes.Repeat([]byte{7}, 32)
	e := &store.Entry{ID: "0190a0b0-0000-7000-8000-000000000001", Op: "retrieve", Target: "f1.txt", Source: "file",
		Reference: "f1.txt#L1-L20", Hash: "sha256:ab", Status: store.StatusOK, Time: time.Unix(1700000000, 5).UTC(),
		Request: []byte(`{"target":"f1.txt"}`), Result: bytes.Repeat([]byte("x"), 1500)}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, st := decodeOne(key, encodeEntry(key, e)); st != recGood {
			b.Fatal("record does not decode")
		}
	}
}
