package ui_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
)

// TestLedgerSourceFilters: the ledger's source filter offers exactly the
// kinds of the engine's registry (the list that once said "sql" where the
// kind is "database", so that filter matched nothing), and each one
// matches the entries recorded with that kind.
func TestLedgerSourceFilters(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kinds := e.Deps.Engine.Registry().Kinds()
	if !slices.Contains(kinds, "database") || len(kinds) < 8 {
		t.Fatalf("registry kinds = %v; want every source of sources.New", kinds)
	}
	// A real retrieval of the file source, and one entry of every kind as
	// the engine records it (entry.Source is provenance.source_type, the
	// source's Kind).
	e.retrieveID(t, "notes.txt", nil)
	for _, k := range kinds {
		err := e.Deps.Store.Append(ctx, &store.Entry{ID: retrieve.NewID(), Time: time.Now().UTC(), Op: "get",
			Target: "entry-of-" + k, Source: k, Status: "ok", Request: json.RawMessage(`{}`), Result: json.RawMessage(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
	}
	code, _, body := e.get(t, "/ui/ledger")
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	sel := regexp.MustCompile(`(?s)<select name="source">(.*?)</select>`).FindStringSubmatch(body)
	if sel == nil {
		t.Fatalf("no source filter on the ledger page:\n%s", body)
	}
	var offered []string
	for _, m := range regexp.MustCompile(`<option[^>]*>([^<]*)</option>`).FindAllStringSubmatch(sel[1], -1) {
		if m[1] != "any" {
			offered = append(offered, html.UnescapeString(m[1]))
		}
	}
	if !slices.Equal(offered, kinds) {
		t.Fatalf("source filter offers %v, want the registry's kinds %v", offered, kinds)
	}
	for _, k := range offered {
		_, _, page := e.get(t, "/ui/ledger?source="+k)
		if !regexp.MustCompile(`>entry-of-` + regexp.QuoteMeta(k) + `<`).MatchString(page) {
			t.Errorf("filter source=%s does not show the entry recorded with kind %s", k, k)
		}
		for _, other := range kinds {
			if other != k && regexp.MustCompile(`>entry-of-`+regexp.QuoteMeta(other)+`<`).MatchString(page) {
				t.Errorf("filter source=%s shows the %s entry", k, other)
			}
		}
	}
	if _, _, page := e.get(t, "/ui/ledger?source=file"); !regexp.MustCompile(`notes\.txt`).MatchString(page) {
		t.Errorf("filter source=file does not show the file retrieval of notes.txt")
	}
}
