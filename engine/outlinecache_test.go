package engine_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/extract/codeparser"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// TestOutlineCache: the outline of bytes outlined before comes from the
// store (a row doctored in the store shows through, for outline and for
// get --section); other bytes are parsed and cached under their own key; a
// row that does not decode is parsed over, never an error.
func TestOutlineCache(t *testing.T) {
	testws.NeedsCgo(t, "Python")
	ctx := context.Background()
	ws := testws.New(t)
	ws.Write("m.py", "def real():\n    return 1\n")
	st, err := sqlite.OpenStore(ctx, filepath.Join(ws.Root, ".retrieve", "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	src, err := file.New(file.Options{Root: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{src}, Store: st, Code: codeparser.New(), SpoolDir: filepath.Join(ws.Root, ".retrieve", "tmp")})
	if err != nil {
		t.Fatal(err)
	}
	names := func() []string {
		t.Helper()
		o, err := e.Outline(ctx, "m.py", nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range o.Symbols {
			out = append(out, s.Path)
		}
		return out
	}
	rows := func() (n int) {
		t.Helper()
		if err := st.SQL().QueryRowContext(ctx, `SELECT count(*) FROM outline_cache`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	exec := func(q string) {
		t.Helper()
		if _, err := st.SQL().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}

	if got := names(); len(got) != 1 || got[0] != "real" || rows() != 1 {
		t.Fatalf("first outline = %v with %d cached rows, want [real] and 1", got, rows())
	}
	// The row names the symbol "fake" now: only the cache can say so.
	var data []byte
	if err := st.SQL().QueryRowContext(ctx, `SELECT data FROM outline_cache`).Scan(&data); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SQL().ExecContext(ctx, `UPDATE outline_cache SET data = ?`, bytes.ReplaceAll(data, []byte("real"), []byte("fake"))); err != nil {
		t.Fatal(err)
	}
	if got := names(); len(got) != 1 || got[0] != "fake" {
		t.Fatalf("second outline = %v, want the cached [fake]", got)
	}
	res, err := e.Retrieve(ctx, retrieve.Request{Target: "m.py", NoRecord: true, Constraints: retrieve.Constraints{Sections: []string{"fake"}}})
	if err != nil {
		t.Fatalf("get --section fake: %v (the cache serves get --section too)", err)
	}
	if res.Citation.Reference != "m.py:1-2" {
		t.Errorf("reference %q, want m.py:1-2", res.Citation.Reference)
	}

	ws.Write("m.py", "def other():\n    return 2\n")
	if got := names(); len(got) != 1 || got[0] != "other" || rows() != 2 {
		t.Fatalf("outline of new bytes = %v with %d rows, want [other] and 2", got, rows())
	}
	exec(`UPDATE outline_cache SET data = x'00ff'`)
	if got := names(); len(got) != 1 || got[0] != "other" {
		t.Fatalf("outline over a broken row = %v, want [other]", got)
	}
}
