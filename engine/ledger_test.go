package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// recordingEngine is an engine over root that records into a real SQLite
// store, with a clock the test can move.
func recordingEngine(t testing.TB, root string, now *time.Time) (*engine.Engine, *sqlite.Store) {
	t.Helper()
	st, err := sqlite.OpenStore(context.Background(), filepath.Join(root, ".retrieve", "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	src, err := file.New(file.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	clock := func() time.Time { return time.Now() }
	if now != nil {
		clock = func() time.Time { return *now }
	}
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{src}, Store: st, Now: clock, SpoolDir: filepath.Join(root, ".retrieve", "tmp")})
	if err != nil {
		t.Fatal(err)
	}
	return e, st
}

func TestLedger(t *testing.T) {
	ctx := context.Background()
	ws := testws.New(t)
	ws.Write("notes.md", "# Notes\n\nThe cache is warm.\nThe disk is full.\n")
	ws.InitGit()
	e, st := recordingEngine(t, ws.Root, nil)

	t.Run("Record", func(t *testing.T) {
		res := mustGet(t, e, retrieve.Request{Target: "notes.md", Constraints: retrieve.Constraints{Lines: "3-4"}})
		if res.RetrievalID == "" {
			t.Fatal("retrieval_id is empty with a store")
		}
		entry, err := st.Entry(ctx, res.RetrievalID)
		if err != nil {
			t.Fatal(err)
		}
		if entry.Status != store.StatusOK || entry.Reference != "notes.md:3-4" || entry.Hash != *res.Citation.Hash || entry.Snapshot != *res.Citation.SourceHash {
			t.Errorf("entry = %+v", entry)
		}
		contracttest.Check(t, []byte(entry.Result))
		// The snapshot holds the whole file, once however often it is cited.
		mustGet(t, e, retrieve.Request{Target: "notes.md"})
		var n int
		if err := st.SQL().QueryRow(`SELECT count(*) FROM snapshots`).Scan(&n); err != nil || n != 1 {
			t.Errorf("snapshots = %d (%v), want 1", n, err)
		}
	})
	t.Run("RecordFailure", func(t *testing.T) {
		res, err := get(t, e, retrieve.Request{Target: "missing.md"})
		if err == nil || res.RetrievalID == "" {
			t.Fatalf("err=%v id=%q: a failure is recorded too", err, res.RetrievalID)
		}
		entry, err := st.Entry(ctx, res.RetrievalID)
		if err != nil || entry.Status != store.StatusError || entry.Code != "PATH_NOT_FOUND" {
			t.Fatalf("entry = %+v, %v", entry, err)
		}
	})
	t.Run("NoRecord", func(t *testing.T) {
		before, _ := st.Entries(ctx, store.Filter{})
		res := mustGet(t, e, retrieve.Request{Target: "notes.md", NoRecord: true})
		after, _ := st.Entries(ctx, store.Filter{})
		if res.RetrievalID != "" || len(after) != len(before) {
			t.Errorf("id=%q entries %d→%d, want nothing recorded", res.RetrievalID, len(before), len(after))
		}
	})
	t.Run("VerifyAndChange", func(t *testing.T) {
		res := mustGet(t, e, retrieve.Request{Target: "notes.md:3-3"})
		v, err := e.VerifyEntry(ctx, res.RetrievalID)
		if err != nil || v.Status != retrieve.Verified {
			t.Fatalf("verify = %+v, %v; want verified", v, err)
		}
		if v.VerificationID == "" {
			t.Error("the verification was not recorded")
		}
		ws.Write("notes.md", "# Notes\n\nThe cache is cold.\nThe disk is full.\n")
		v, err = e.VerifyEntry(ctx, res.RetrievalID)
		if err != nil || v.Status != retrieve.Changed {
			t.Fatalf("verify = %+v, %v; want changed", v, err)
		}
		if !strings.Contains(v.Diff, "-The cache is warm.") || !strings.Contains(v.Diff, "+The cache is cold.") {
			t.Errorf("diff lacks the change:\n%s", v.Diff)
		}
		// The same check from a result instead of a ledger id.
		if v := e.VerifyResult(ctx, res); v.Status != retrieve.Changed {
			t.Errorf("VerifyResult = %s, want changed", v.Status)
		}
	})
	t.Run("VerifyUnavailable", func(t *testing.T) {
		ws.Write("gone.md", "soon gone\n")
		res := mustGet(t, e, retrieve.Request{Target: "gone.md"})
		os.Remove(filepath.Join(ws.Root, "gone.md"))
		v, err := e.VerifyEntry(ctx, res.RetrievalID)
		if err != nil || v.Status != retrieve.Unavailable || v.Error == nil || v.Error.Code != retrieve.CodePathNotFound {
			t.Fatalf("verify = %+v, %v; want unavailable with PATH_NOT_FOUND", v, err)
		}
	})
	t.Run("ErrVerifyUnknownID", func(t *testing.T) {
		_, err := e.VerifyEntry(ctx, retrieve.NewID())
		if retrieve.ErrorCode(err) != retrieve.CodeNotFound {
			t.Fatalf("code = %s, want NOT_FOUND", retrieve.ErrorCode(err))
		}
	})
}

func TestFallbackSnapshot(t *testing.T) {
	ws := testws.New(t)
	ws.Write("status.json", `{"state":"green","n":3}`)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	e, _ := recordingEngine(t, ws.Root, &now)
	first := mustGet(t, e, retrieve.Request{Target: "status.json", Constraints: retrieve.Constraints{Select: ".state"}})
	os.Remove(filepath.Join(ws.Root, "status.json"))
	now = now.Add(48 * time.Hour)

	t.Run("ErrWithoutFallback", func(t *testing.T) {
		_, err := get(t, e, retrieve.Request{Target: "status.json", Constraints: retrieve.Constraints{Select: ".state"}})
		if retrieve.ErrorCode(err) != retrieve.CodePathNotFound {
			t.Fatalf("code = %s, want PATH_NOT_FOUND", retrieve.ErrorCode(err))
		}
	})
	t.Run("OK", func(t *testing.T) {
		res := mustGet(t, e, retrieve.Request{Target: "status.json", Fallback: retrieve.FallbackSnapshot, Constraints: retrieve.Constraints{Select: ".state"}})
		if res.Retrieved.Data != "green" || res.Provenance.RetrievedFrom != retrieve.FromSnapshot {
			t.Fatalf("data=%v from=%s, want green from the snapshot", res.Retrieved.Data, res.Provenance.RetrievedFrom)
		}
		if res.Provenance.AgeSeconds != 48*3600 {
			t.Errorf("age = %v, want 172800", res.Provenance.AgeSeconds)
		}
		if *res.Citation.Hash != *first.Citation.Hash {
			t.Errorf("hash %s, want the cited %s", *res.Citation.Hash, *first.Citation.Hash)
		}
		if !strings.Contains(strings.Join(res.Assumptions, "\n"), "PATH_NOT_FOUND") {
			t.Errorf("the live error is not in the assumptions: %q", res.Assumptions)
		}
		// A file is not a volatile source class: its age does not make it stale.
		if res.Provenance.Freshness != retrieve.FreshnessUnknown {
			t.Errorf("freshness = %s, want unknown", res.Provenance.Freshness)
		}
	})
}

func TestQuote(t *testing.T) {
	ctx := context.Background()
	ws := testws.New(t)
	ws.Write("doc.md", "# Title\n\nRetrieval with  provenance\nfor AI agents.\nNothing else here.\n")
	e, _ := recordingEngine(t, ws.Root, nil)

	t.Run("OK", func(t *testing.T) {
		res, err := e.Quote(ctx, "doc.md", "for AI agents", retrieve.QuoteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		contracttest.Check(t, res)
		if got, want := res.EvidenceAnchors, []string{"doc.md:4:1-4:13"}; len(got) != 1 || got[0] != want[0] {
			t.Errorf("anchors = %q, want %q", got, want)
		}
		if res.Citation.Reference != "doc.md:4-4" || res.Retrieved.Data != "for AI agents.\n" {
			t.Errorf("reference=%q data=%q", res.Citation.Reference, res.Retrieved.Data)
		}
	})
	t.Run("Loose", func(t *testing.T) {
		res, err := e.Quote(ctx, "doc.md", "retrieval WITH provenance for ai agents", retrieve.QuoteOptions{Loose: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.EvidenceAnchors[0]; got != "doc.md:3:1-4:13" {
			t.Errorf("anchor = %q, want doc.md:3:1-4:13", got)
		}
		if res.Citation.Reference != "doc.md:3-4" {
			t.Errorf("reference = %q", res.Citation.Reference)
		}
	})
	t.Run("InSpan", func(t *testing.T) {
		res, err := e.Quote(ctx, "doc.md:4-5", "Nothing else", retrieve.QuoteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.EvidenceAnchors[0]; got != "doc.md:5:1-5:12" {
			t.Errorf("anchor = %q, want line numbers of the file, not of the span", got)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		res, err := e.Quote(ctx, "doc.md", "for AI agent systems", retrieve.QuoteOptions{})
		if retrieve.ErrorCode(err) != retrieve.CodeQuoteNotFound {
			t.Fatalf("code = %s, want QUOTE_NOT_FOUND", retrieve.ErrorCode(err))
		}
		contracttest.Check(t, res)
		if !strings.Contains(res.Error.Message, "does NOT match") || len(res.Error.Alternatives) != 1 || res.Error.Alternatives[0] != "doc.md:4-4" {
			t.Errorf("error = %+v, want the closest passage doc.md:4-4 marked as not matching", res.Error)
		}
	})
	t.Run("LooseUnicode", func(t *testing.T) {
		// NFD accents, full-width letters and digits, an ideographic space.
		ws.Write("zh.md", "# 说明\n\nCafe\u0301 Ｒｅｔｒｉｅｖｅ 版本２\u3000回滚时先检查证书。\n")
		res, err := e.Quote(ctx, "zh.md", "café retrieve 版本2 回滚时先检查证书", retrieve.QuoteOptions{Loose: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.EvidenceAnchors[0]; got != "zh.md:3:1-3:27" {
			t.Errorf("anchor = %q, want zh.md:3:1-3:27", got)
		}
		if _, err := e.Quote(ctx, "zh.md", "cafe retrieve", retrieve.QuoteOptions{Loose: true}); retrieve.ErrorCode(err) != retrieve.CodeQuoteNotFound {
			t.Errorf("loose ignored an accent: %v", err)
		}
	})
	t.Run("ErrLooseIsNotExact", func(t *testing.T) {
		_, err := e.Quote(ctx, "doc.md", "retrieval with provenance", retrieve.QuoteOptions{})
		if retrieve.ErrorCode(err) != retrieve.CodeQuoteNotFound {
			t.Fatalf("an inexact quote passed the exact check: %v", err)
		}
	})
}

// A store that cannot be written leaves the retrieval intact, with an
// assumption that it was not recorded.
func TestReadOnlyStore(t *testing.T) {
	ws := testws.New(t)
	ws.Write("a.txt", "a\n")
	e, st := recordingEngine(t, ws.Root, nil)
	// Make every write fail: a read-only query_only connection pool.
	if _, err := st.SQL().Exec(`PRAGMA query_only = 1`); err != nil {
		t.Fatal(err)
	}
	st.SQL().SetMaxOpenConns(1)
	if _, err := st.SQL().Exec(`PRAGMA query_only = 1`); err != nil {
		t.Fatal(err)
	}
	res := mustGet(t, e, retrieve.Request{Target: "a.txt"})
	if res.Retrieved.Data != "a\n" || res.RetrievalID != "" {
		t.Fatalf("data=%q id=%q", res.Retrieved.Data, res.RetrievalID)
	}
	if !strings.Contains(strings.Join(res.Assumptions, "\n"), "not recorded") {
		t.Errorf("assumptions = %q, want one saying it was not recorded", res.Assumptions)
	}
}
