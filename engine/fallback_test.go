package engine_test

import (
	"context"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// pageSource is a "web" source of one page behind the scheme page:, whose
// reads carry a heuristic-extraction deduction; down makes it fail.
type pageSource struct{ down bool }

func (*pageSource) Kind() string      { return "web" }
func (*pageSource) Schemes() []string { return []string{"page"} }
func (s *pageSource) Fetch(_ context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	if s.down {
		return nil, retrieve.Errorf(retrieve.CodeUpstreamStatus, "%s answered 503", req.Target)
	}
	return &retrieve.Document{
		Body: io.NopCloser(strings.NewReader("The article.\n")), Size: -1, Name: "a", Locator: req.Target, Volatile: true,
		Assumptions: []string{"Chosen by a heuristic"}, Deductions: []retrieve.Deduction{{Reason: "heuristic extraction", Amount: 0.05}},
	}, nil
}

// TestFallbackStaleCap: a snapshot fallback scores at most the recording
// read's confidence, decayed when the snapshot is stale (docs/CONTRACT.md),
// and says so with the recording read's notes.
func TestFallbackStaleCap(t *testing.T) {
	dir := t.TempDir()
	st, err := sqlite.OpenStore(context.Background(), filepath.Join(dir, "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Now()
	src := &pageSource{}
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{src}, Store: st, Now: func() time.Time { return now }, SpoolDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	live := mustGet(t, e, retrieve.Request{Target: "page:a"})
	if live.Confidence != 0.95 {
		t.Fatalf("live confidence %v", live.Confidence)
	}
	src.down = true
	for _, age := range []time.Duration{time.Hour, 7 * 24 * time.Hour} {
		now = time.Now().Add(age)
		res := mustGet(t, e, retrieve.Request{Target: "page:a", Fallback: "snapshot"})
		// The live read's 0.95, less 0.05 for a snapshot served because
		// the live read failed: below the live read.
		want := 0.9
		if age > 24*time.Hour {
			want = math.Round(0.9*math.Pow(0.5, float64(age)/float64(engine.StaleHalfLife))*1000) / 1000
		}
		notes := strings.Join(res.Assumptions, "\n")
		if res.Provenance.RetrievedFrom != retrieve.FromSnapshot || math.Abs(res.Confidence-want) > 0.0015 ||
			!strings.Contains(notes, live.RetrievalID) || !strings.Contains(notes, "Chosen by a heuristic") {
			t.Errorf("age %s: from %s, confidence %v (want %v), assumptions %v", age, res.Provenance.RetrievedFrom, res.Confidence, want, res.Assumptions)
		}
	}
}

// TestRequestFieldsChecked: a format, a fallback or a cap that no source
// would honour is refused, not ignored (`--format nope` returned text with
// "format: nope" in applied_filters).
func TestRequestFieldsChecked(t *testing.T) {
	ws := testws.New(t)
	ws.Write("a.txt", "alpha\n")
	e, _ := recordingEngine(t, ws.Root, nil)
	for name, req := range map[string]retrieve.Request{
		"format":    {Target: "a.txt", Format: "nope"},
		"fallback":  {Target: "a.txt", Fallback: "cache"},
		"max_bytes": {Target: "a.txt", Constraints: retrieve.Constraints{MaxBytes: -1}},
		"max_rows":  {Target: "a.txt", Constraints: retrieve.Constraints{MaxRows: -5}},
		"pages":     {Target: "a.txt", Web: retrieve.WebOptions{Pages: -1}},
	} {
		res, err := e.Retrieve(context.Background(), req)
		if e := retrieve.AsError(err); err == nil || e.Code != retrieve.CodeInputValidation || !strings.Contains(e.Message, name) || e.Hint == "" {
			t.Errorf("%s: err %v", name, err)
		}
		if res == nil || res.Error == nil || res.Retrieved.Data != nil {
			t.Errorf("%s: the failure envelope is missing: %+v", name, res)
		}
	}
	for _, f := range retrieve.RequestFormats {
		if f == "binary" || f == "html" {
			continue // data as base64; the HTML of a web page
		}
		if _, err := e.Retrieve(context.Background(), retrieve.Request{Target: "a.txt", Format: f, NoRecord: true}); err != nil && retrieve.AsError(err).Code == retrieve.CodeInputValidation {
			t.Errorf("format %s refused: %v", f, err)
		}
	}
}
