package webcache_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/webcache"
	"github.com/retrieve-dev/retrieve/internal/webclient"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// record appends a successful get of target by kind in mode, with body kept
// as its snapshot, the way the engine records a web retrieval.
func record(t *testing.T, st store.Store, kind, target, mode string, body []byte, at time.Time) string {
	t.Helper()
	ctx := context.Background()
	hash := retrieve.HashBytes(body)
	if err := st.PutSnapshot(ctx, hash, bytes.NewReader(body)); err != nil {
		t.Fatal(err)
	}
	result, err := json.Marshal(map[string]any{
		"citation": map[string]any{"source_hash": "sha256:raw-" + mode},
		"provenance": map[string]any{"source_type": kind, "metadata": map[string]any{
			webclient.MetaMode: mode, webclient.MetaETag: `"v1"`,
			webclient.MetaLastModified: "Mon, 02 Jan 2006 15:04:05 GMT", webclient.MetaBodyFormat: "markdown",
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &store.Entry{ID: retrieve.NewID(), Time: at, Op: "get", Target: target, Source: kind,
		Status: store.StatusOK, Snapshot: hash, SourceHash: hash, Request: json.RawMessage(`{}`), Result: result}
	if err := st.Append(ctx, e); err != nil {
		t.Fatal(err)
	}
	return hash
}

func openStore(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlite.OpenStore(context.Background(), filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestLookupReadsTheRecordedValidators(t *testing.T) {
	st := openStore(t)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	record(t, st, "web", "http://127.0.0.1/page", "readability", []byte("# Page\n"), at)
	got, err := webcache.New(st).Lookup(context.Background(), "web", "http://127.0.0.1/page", "readability")
	if err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("Lookup found nothing")
	}
	if string(got.Body) != "# Page\n" || got.ETag != `"v1"` || got.LastModified != "Mon, 02 Jan 2006 15:04:05 GMT" ||
		got.Format != "markdown" || got.SourceHash != "sha256:raw-readability" || !got.At.Equal(at) {
		t.Fatalf("Lookup = %+v", got)
	}
}

func TestLookupMatchesKindAndMode(t *testing.T) {
	st := openStore(t)
	record(t, st, "web", "http://127.0.0.1/page", "raw", []byte("raw"), time.Now())
	c := webcache.New(st)
	for _, tc := range []struct{ kind, mode string }{{"web", "readability"}, {"api", "raw"}} {
		got, err := c.Lookup(context.Background(), tc.kind, "http://127.0.0.1/page", tc.mode)
		if err != nil || got != nil {
			t.Errorf("Lookup(%s, %s) = %+v, %v; want nothing", tc.kind, tc.mode, got, err)
		}
	}
	got, err := c.Lookup(context.Background(), "web", "http://127.0.0.1/other", "raw")
	if err != nil || got != nil {
		t.Errorf("Lookup of an unrecorded target = %+v, %v; want nothing", got, err)
	}
}

func TestRememberAnswersWithoutTheStore(t *testing.T) {
	st := openStore(t)
	c := webcache.New(st)
	c.Remember("web", "http://127.0.0.1/p", "raw", &webclient.Cached{Body: []byte("fresh"), ETag: `"e"`})
	st.Close() // a store query would now fail
	got, err := c.Lookup(context.Background(), "web", "http://127.0.0.1/p", "raw")
	if err != nil || got == nil || string(got.Body) != "fresh" {
		t.Fatalf("Lookup = %+v, %v; want the remembered body", got, err)
	}
}

func TestRememberSkipsLargeBodies(t *testing.T) {
	st := openStore(t)
	c := webcache.New(st)
	c.Remember("web", "http://127.0.0.1/big", "raw", &webclient.Cached{Body: make([]byte, 1<<20+1)})
	got, err := c.Lookup(context.Background(), "web", "http://127.0.0.1/big", "raw")
	if err != nil || got != nil {
		t.Fatalf("Lookup = %v, %v; a body over 1 MiB must not be kept", got != nil, err)
	}
}
