package stores_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/stores"
)

func TestParse(t *testing.T) {
	root := "/ws"
	t.Setenv("PGPW_TEST", "s3cret")
	for _, tt := range []struct {
		spec, kind, path, shown string
	}{
		{"", stores.KindSQLite, "/ws/.retrieve/retrieve.db", "/ws/.retrieve/retrieve.db"},
		{"shared/r.db", stores.KindSQLite, "/ws/shared/r.db", "/ws/shared/r.db"},
		{"sqlite:///var/r.db", stores.KindSQLite, "/var/r.db", "/var/r.db"},
		{"sqlite://rel.db", stores.KindSQLite, "/ws/rel.db", "/ws/rel.db"},
		{"postgres://u:${env:PGPW_TEST}@db:5432/r?sslmode=require", stores.KindPostgres, "", "postgres://u:xxxxx@db:5432/r?sslmode=require"},
		{"postgresql://u@db/r", stores.KindPostgres, "", "postgresql://u@db/r"},
	} {
		got, err := stores.Parse(tt.spec, root)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.spec, err)
		}
		if got.Kind != tt.kind || got.Path != tt.path || got.String() != tt.shown {
			t.Errorf("Parse(%q) = %s %q %q; want %s %q %q", tt.spec, got.Kind, got.Path, got.String(), tt.kind, tt.path, tt.shown)
		}
		if strings.Contains(got.String(), "s3cret") {
			t.Errorf("String shows the password: %s", got)
		}
	}
	if got, _ := stores.Parse("postgres://u:${env:PGPW_TEST}@db/r", root); !strings.Contains(got.URL, "s3cret") {
		t.Errorf("the URL is not expanded: %q", got.URL)
	}
	for _, bad := range []string{"mysql://root@db/x", "postgres://u@db/${env:RETRIEVE_UNSET_VAR_X}", "sqlite://", "host=db password=pw dbname=r"} {
		_, err := stores.Parse(bad, root)
		if retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
			t.Errorf("Parse(%q) = %v; want INPUT_VALIDATION_FAILED", bad, err)
		}
	}
}

func TestChoose(t *testing.T) {
	cfg := &config.Config{Store: "from-config.db"}
	t.Setenv(stores.Env, "")
	if got := stores.Choose("", cfg); got != "from-config.db" {
		t.Errorf("config: %q", got)
	}
	t.Setenv(stores.Env, "from-env.db")
	if got := stores.Choose("", cfg); got != "from-env.db" {
		t.Errorf("env: %q", got)
	}
	if got := stores.Choose("from-flag.db", cfg); got != "from-flag.db" {
		t.Errorf("flag: %q", got)
	}
}

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func fill(t *testing.T, s store.Store, n int) {
	ctx := context.Background()
	for i := range n {
		b := bytes.Repeat([]byte(fmt.Sprintf("snapshot %d\n", i%7)), 10+i)
		if err := s.PutSnapshot(ctx, hashOf(b), bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		e := &store.Entry{
			ID: retrieve.NewID(), Time: time.Date(2026, 1, 1, 0, 0, i, 123456789, time.UTC), Op: "get",
			Target: fmt.Sprintf("f%d.md", i), Source: "file", Reference: fmt.Sprintf("f%d.md:1-2", i),
			Hash: hashOf([]byte{byte(i)}), SourceHash: hashOf(b), Snapshot: hashOf(b), Status: store.StatusOK,
			Duration: time.Duration(i) * time.Microsecond, Request: json.RawMessage(`{"target":"x"}`), Result: json.RawMessage(`{"ok": true}`),
		}
		if i%5 == 0 {
			e.Status, e.Code, e.Snapshot, e.Request = store.StatusError, "PATH_NOT_FOUND", "", json.RawMessage{}
		}
		if err := s.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
}

func open(t *testing.T, spec string) store.Store {
	t.Helper()
	tg, err := stores.Parse(spec, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := stores.Open(context.Background(), tg, stores.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// SQLite → PostgreSQL → SQLite leaves the same content, and a second copy
// (a resumed one) skips everything.
func TestCopyRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := open(t, filepath.Join(dir, "a.db"))
	pg := open(t, pgtest.URL(t, "postgres_copy"))
	b := open(t, filepath.Join(dir, "b.db"))
	defer stores.SetBatch(50)()
	fill(t, a, 121) // more than one batch of entries and snapshots
	rep, err := stores.Copy(ctx, a, pg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Verified || rep.EntriesCopied != 121 || rep.SnapshotsCopied != 121 {
		t.Fatalf("SQLite → PostgreSQL: %+v", rep)
	}
	var calls, last int64
	rep, err = stores.Copy(ctx, pg, b, func(done, total int64) { calls++; last = done })
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Verified || rep.EntriesCopied != 121 || calls < 2 || last != 2*121 {
		t.Fatalf("PostgreSQL → SQLite: %+v (progress called %d times, last %d)", rep, calls, last)
	}
	sa, _ := stores.Summarize(ctx, a)
	sb, _ := stores.Summarize(ctx, b)
	if sa != sb || sa.Entries != 121 {
		t.Fatalf("round trip changed the content: %+v vs %+v", sa, sb)
	}
	// Resume: a copy into a store that has part of it copies the rest.
	if _, err := b.DeleteEntriesBefore(ctx, time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	rep, err = stores.Copy(ctx, pg, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Verified || rep.EntriesCopied != 60 || rep.EntriesSkipped != 61 || rep.SnapshotsCopied != 0 {
		t.Fatalf("resumed copy: %+v", rep)
	}
}

// A copy interrupted part way (the context canceled, as by Ctrl-C) resumes
// when run again and ends verified.
func TestCopyInterrupted(t *testing.T) {
	a := open(t, filepath.Join(t.TempDir(), "a.db"))
	pg := open(t, pgtest.URL(t, "postgres_resume"))
	defer stores.SetBatch(50)()
	fill(t, a, 140)
	ctx, cancel := context.WithCancel(context.Background())
	_, err := stores.Copy(ctx, a, pg, func(done, total int64) {
		if done >= 180 {
			cancel()
		}
	})
	if err == nil {
		t.Fatal("the interrupted copy reported success")
	}
	rep, err := stores.Copy(context.Background(), a, pg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Verified || rep.SnapshotsSkipped != 140 || rep.EntriesSkipped == 0 || rep.EntriesCopied == 0 || rep.EntriesCopied+rep.EntriesSkipped != 140 {
		t.Fatalf("resumed copy: %+v", rep)
	}
}
