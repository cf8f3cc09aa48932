package retrieve_test

import (
	"context"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
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
	e, err := retrieve.New(retrieve.Options{Sources: []retrieve.Source{src}, Store: st, Now: func() time.Time { return now }, SpoolDir: dir})
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
		want := 0.95
		if age > 24*time.Hour {
			want = math.Round(0.95*math.Pow(0.5, float64(age)/float64(retrieve.StaleHalfLife))*1000) / 1000
		}
		notes := strings.Join(res.Assumptions, "\n")
		if res.Provenance.RetrievedFrom != retrieve.FromSnapshot || math.Abs(res.Confidence-want) > 0.0015 ||
			!strings.Contains(notes, live.RetrievalID) || !strings.Contains(notes, "Chosen by a heuristic") {
			t.Errorf("age %s: from %s, confidence %v (want %v), assumptions %v", age, res.Provenance.RetrievedFrom, res.Confidence, want, res.Assumptions)
		}
	}
}
