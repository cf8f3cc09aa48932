package engine_test

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// toySource is a source of a kind no engine code names ("toy", scheme
// toy:): its documents carry the facts the test gives, and down makes it
// fail, so that only the recorded facts can decide how a snapshot is served.
type toySource struct {
	doc  retrieve.Document // the facts, Version and Locator of every document
	down bool
}

func (*toySource) Kind() string      { return "toy" }
func (*toySource) Schemes() []string { return []string{"toy"} }
func (s *toySource) Fetch(_ context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	if s.down {
		return nil, retrieve.Errorf(retrieve.CodeUpstreamStatus, "%s is down", req.Target)
	}
	doc := s.doc
	doc.Body, doc.Size, doc.Name = io.NopCloser(strings.NewReader("one\ntwo words\nthree\nfour\n")), -1, "notes.txt"
	return &doc, nil
}

// toyEngine records the toy source's retrievals in a real SQLite store, on
// the clock *now.
func toyEngine(t *testing.T, src *toySource, now *time.Time) *engine.Engine {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.OpenStore(context.Background(), filepath.Join(dir, "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{src}, Store: st, SpoolDir: dir, Now: func() time.Time { return *now }})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestFactsDriveSnapshots: what a snapshot served two days later is — stale
// or of unknown freshness, cited by line span or whole — follows the facts
// the toy source set on its document and the ledger recorded, not its kind.
func TestFactsDriveSnapshots(t *testing.T) {
	for _, tt := range []struct {
		name      string
		doc       retrieve.Document
		freshness retrieve.Freshness
		reference string
	}{
		{"Volatile", retrieve.Document{Locator: "toy:notes", Volatile: true}, retrieve.FreshnessStale, "toy:notes"},
		{"Stable", retrieve.Document{Locator: "toy:notes"}, retrieve.FreshnessUnknown, "toy:notes"},
		{"VolatileSpans", retrieve.Document{Locator: "toy:notes", Volatile: true, Spans: true}, retrieve.FreshnessStale, "toy:notes:2-3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
			src := &toySource{doc: tt.doc}
			e := toyEngine(t, src, &now)
			req := retrieve.Request{Target: "toy:notes", Constraints: retrieve.Constraints{Lines: "2-3"}}
			live := mustGet(t, e, req)
			if live.Citation.Reference != tt.reference || live.Provenance.Freshness != retrieve.FreshnessFresh {
				t.Fatalf("live: reference %s, freshness %s; want %s, fresh", live.Citation.Reference, live.Provenance.Freshness, tt.reference)
			}
			if _, ok := live.Provenance.Metadata["document_facts"]; ok {
				t.Errorf("the returned result shows the ledger's facts: %v", live.Provenance.Metadata)
			}
			// The ledger holds the facts the source set.
			entry, err := e.Store().Entry(ctx, live.RetrievalID)
			if err != nil {
				t.Fatal(err)
			}
			var recorded struct {
				Provenance struct {
					Metadata struct {
						Document map[string]bool `json:"document_facts"`
					} `json:"metadata"`
				} `json:"provenance"`
			}
			if err := json.Unmarshal(entry.Result, &recorded); err != nil {
				t.Fatal(err)
			}
			if got := recorded.Provenance.Metadata.Document; got["volatile"] != tt.doc.Volatile || got["spans"] != tt.doc.Spans {
				t.Errorf("recorded facts %v, want volatile %v, spans %v", got, tt.doc.Volatile, tt.doc.Spans)
			}
			// Two days later, the source down: the snapshot is served as
			// the recorded facts say.
			src.down = true
			now = now.Add(48 * time.Hour)
			res := mustGet(t, e, retrieve.Request{Target: "toy:notes", Constraints: req.Constraints, Fallback: retrieve.FallbackSnapshot})
			if res.Provenance.RetrievedFrom != retrieve.FromSnapshot || res.Provenance.Freshness != tt.freshness || res.Citation.Reference != tt.reference {
				t.Errorf("fallback: from %s, freshness %s, reference %s; want snapshot, %s, %s",
					res.Provenance.RetrievedFrom, res.Provenance.Freshness, res.Citation.Reference, tt.freshness, tt.reference)
			}
			// A fallback scores below the live read (docs/CONTRACT.md:
			// 0.05 less), and lower still when the snapshot is stale.
			stale := res.Provenance.Freshness == retrieve.FreshnessStale
			if res.Confidence >= live.Confidence || stale != (res.Confidence < live.Confidence-0.05-1e-9) {
				t.Errorf("fallback confidence %v against live %v: stale %v", res.Confidence, live.Confidence, stale)
			}
			if got, err := e.RecordedResult(ctx, e.Store(), entry); err != nil || got.Provenance.Metadata["document_facts"] != nil {
				t.Errorf("RecordedResult shows the ledger's facts: %v, %v", got.Provenance.Metadata, err)
			}
		})
	}
}

// TestCurrentOnlyFact: a verification says it compared the document as it
// is now only when the source said it cannot read as of the cited version.
func TestCurrentOnlyFact(t *testing.T) {
	version := "toy-v1"
	for _, currentOnly := range []bool{true, false} {
		now := time.Now()
		src := &toySource{doc: retrieve.Document{Locator: "toy:notes", Version: &version, CurrentOnly: currentOnly}}
		e := toyEngine(t, src, &now)
		live := mustGet(t, e, retrieve.Request{Target: "toy:notes"})
		v, err := e.VerifyEntry(context.Background(), live.RetrievalID)
		if err != nil || v.Status != retrieve.Verified {
			t.Fatalf("current only %v: %+v, %v", currentOnly, v, err)
		}
		noted := strings.Contains(strings.Join(v.Notes, "\n"), "cannot read as of the cited version toy-v1")
		if noted != currentOnly {
			t.Errorf("current only %v: notes %q", currentOnly, v.Notes)
		}
	}
}

// TestTextFragmentsFact: a quotation from a document whose spans are text
// fragments is anchored by one, whatever the scheme.
func TestTextFragmentsFact(t *testing.T) {
	for _, fragments := range []bool{true, false} {
		now := time.Now()
		src := &toySource{doc: retrieve.Document{Locator: "toy:notes", TextFragments: fragments, Spans: !fragments}}
		e := toyEngine(t, src, &now)
		res, err := e.Quote(context.Background(), "toy:notes", "two words", retrieve.QuoteOptions{})
		if err != nil {
			t.Fatalf("text fragments %v: %v", fragments, err)
		}
		want := "toy:notes:2:1-2:9"
		if fragments {
			want = "toy:notes#:~:text=two%20words"
		}
		if len(res.EvidenceAnchors) != 1 || res.EvidenceAnchors[0] != want {
			t.Errorf("text fragments %v: anchors %q, want %q", fragments, res.EvidenceAnchors, want)
		}
	}
}

// TestFactsNeverReturned: a source that hands back a recorded result's
// metadata (as the web source does when it revalidates from the ledger)
// does not make the ledger's facts show in the result, nor loses its own.
func TestFactsNeverReturned(t *testing.T) {
	now := time.Now()
	md := map[string]any{"etag": "x", "document_facts": map[string]any{"volatile": true}}
	src := &toySource{doc: retrieve.Document{Locator: "toy:notes", Metadata: md}}
	e := toyEngine(t, src, &now)
	res := mustGet(t, e, retrieve.Request{Target: "toy:notes"})
	if _, ok := res.Provenance.Metadata["document_facts"]; ok || res.Provenance.Metadata["etag"] != "x" {
		t.Errorf("metadata %v, want the source's etag and no facts", res.Provenance.Metadata)
	}
	if _, ok := md["document_facts"]; !ok {
		t.Errorf("the source's metadata map was changed: %v", md)
	}
}
