package sqlcommon_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
)

func TestEntriesQuery(t *testing.T) {
	d := sqlcommon.Dialect{
		Param: func(n int) string { return "$" + strconv.Itoa(n) },
		Time:  func(t time.Time) any { return t.Format(time.RFC3339) },
	}
	since := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	q, args := sqlcommon.EntriesQuery(d, "id", store.Filter{Op: "get", Source: "file", Since: since, BeforeID: "z", Limit: 5})
	want := "SELECT id FROM ledger WHERE op = $1 AND source = $2 AND time >= $3 AND id < $4 ORDER BY id DESC LIMIT 5"
	if q != want {
		t.Errorf("query:\n got %s\nwant %s", q, want)
	}
	if len(args) != 4 || args[0] != "get" || args[1] != "file" || args[2] != "2026-01-02T03:04:05Z" || args[3] != "z" {
		t.Errorf("args = %q, want [get file 2026-01-02T03:04:05Z z]", args)
	}
	if q, args := sqlcommon.EntriesQuery(d, "id", store.Filter{}); q != "SELECT id FROM ledger ORDER BY id DESC" || len(args) != 0 {
		t.Errorf("no filter: got %q %q", q, args)
	}
}

func TestOntologyRows(t *testing.T) {
	b := &graph.Batch{CountNewTypes: true, SetOntology: &graph.Ontology{EntityTypes: map[string]int{"b": 2, "a": 1}}}
	add, atLeast := sqlcommon.OntologyRows(b, map[string]int{"z": 1, "y": 2}, map[string]int{"r": 3})
	wantAdd := []sqlcommon.TypeCount{{"entity", "y", 2}, {"entity", "z", 1}, {"relation", "r", 3}}
	wantMax := []sqlcommon.TypeCount{{"entity", "a", 1}, {"entity", "b", 2}}
	if len(add) != len(wantAdd) || len(atLeast) != len(wantMax) {
		t.Fatalf("got %v %v, want %v %v", add, atLeast, wantAdd, wantMax)
	}
	for i := range wantAdd {
		if add[i] != wantAdd[i] {
			t.Errorf("add[%d] = %v, want %v", i, add[i], wantAdd[i])
		}
	}
	for i := range wantMax {
		if atLeast[i] != wantMax[i] {
			t.Errorf("atLeast[%d] = %v, want %v", i, atLeast[i], wantMax[i])
		}
	}
	if add, _ := sqlcommon.OntologyRows(&graph.Batch{}, map[string]int{"z": 1}, nil); add != nil {
		t.Errorf("without CountNewTypes add = %v, want none", add)
	}
}
