package ops_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// limits records the row limit of every ledger read.
type limits struct {
	store.Store
	asked []int
}

func (l *limits) Entries(ctx context.Context, f store.Filter) ([]*store.Entry, error) {
	l.asked = append(l.asked, f.Limit)
	return l.Store.Entries(ctx, f)
}

// TestLogPagesByKey: the ledger is paged by the id of the last entry read,
// so every page, however deep, reads at most limit+1 rows; the pages join
// to the whole ledger newest first, with no entry twice; an entry recorded
// after the first page is not slipped into the later ones; a cursor of the
// older offset form still reads the right page.
func TestLogPagesByKey(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.OpenStore(ctx, filepath.Join(t.TempDir(), "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Now().UTC()
	var ids []string // oldest first
	for i := range 130 {
		e := &store.Entry{ID: retrieve.NewID(), Time: now.Add(time.Duration(i-200) * time.Second), Op: "get", Target: "a.md",
			Source: "file", Reference: "a.md:1-2", Status: store.StatusOK, Request: json.RawMessage(`{}`), Result: json.RawMessage(`{}`)}
		if err := st.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	l := &limits{Store: st}
	var got []string
	cursor := ""
	for page := 0; ; page++ {
		out, err := ops.ListLog(ctx, l, now, ops.LogInput{Limit: 25, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range out.Entries {
			got = append(got, r.ID)
		}
		if page == 0 {
			late := &store.Entry{ID: retrieve.NewID(), Time: now.Add(time.Second), Op: "get", Target: "late.md", Source: "file",
				Status: store.StatusOK, Request: json.RawMessage(`{}`), Result: json.RawMessage(`{}`)}
			if err := st.Append(ctx, late); err != nil {
				t.Fatal(err)
			}
		}
		if out.NextCursor == "" {
			break
		}
		cursor = out.NextCursor
	}
	if len(got) != len(ids) {
		t.Fatalf("the pages hold %d entries, the ledger %d (before the late one)", len(got), len(ids))
	}
	for i, id := range got {
		if want := ids[len(ids)-1-i]; id != want {
			t.Fatalf("entry %d is %s, want %s (newest first, each once)", i, id, want)
		}
	}
	for i, n := range l.asked {
		if n > 26 {
			t.Errorf("page %d read up to %d rows; a page of 25 needs at most 26", i+1, n)
		}
	}

	old := ops.Cursor{List: "log", Filter: ops.Fingerprint("", "", "", "", "", ""), Offset: 100,
		Until: now.Add(time.Nanosecond).Format(time.RFC3339Nano)}
	out, err := ops.ListLog(ctx, st, now, ops.LogInput{Limit: 25, Cursor: old.Encode()})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Entries) != 25 || out.Entries[0].ID != ids[len(ids)-101] {
		t.Fatalf("an offset cursor read %d entries starting at %v", len(out.Entries), out.Entries)
	}
}
