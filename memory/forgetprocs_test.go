package memory_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/extract/codeparser"
	"github.com/retrieve-dev/retrieve/format/formats"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/internal/testproc"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/source/sources"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/stores"
)

// The two roles of a concurrent forget of notes, and how many notes the
// writer writes: note i cites docs/a.md (i%3 == 0), docs/b.md (1) or both
// (2), in the semantic tier when i is even, else the episodic one, and
// updates note i-1 after writing note i.
const (
	roleWriter    = "writer"
	roleForgetter = "forgetter"
	procNotes     = 24
)

// procSetup is what the parent hands its children: the workspace, the
// store and a folder for what they report.
type procSetup struct {
	Root, Store, Out string
}

// notesOpen is what a process of the test opens, as a CLI run does: the
// workspace, the store (the ledger), the engine that resolves evidence and
// the memory service with its index on the store.
type notesOpen struct {
	svc    *memory.Service
	index  memory.Index
	ledger store.Ledger
}

func openNotes(t *testing.T, setup procSetup) *notesOpen {
	t.Helper()
	ctx := context.Background()
	fs, err := file.OpenWorkspace(setup.Root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fs.Close() })
	target, err := stores.Parse(setup.Store, setup.Root)
	if err != nil {
		t.Fatal(err)
	}
	st, err := stores.Open(ctx, target, stores.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	srcs, closeSources, err := sources.New(sources.Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = closeSources() })
	eng, err := engine.New(engine.Options{Sources: srcs, Store: st, SpoolDir: t.TempDir(), Code: codeparser.New(), Formats: formats.Default()})
	if err != nil {
		t.Fatal(err)
	}
	idx, err := stores.OpenMemoryIndex(ctx, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	svc, err := memory.New(memory.Options{FS: fs, Index: idx, Evidence: &ops.NoteEvidence{Engine: eng}})
	if err != nil {
		t.Fatal(err)
	}
	return &notesOpen{svc: svc, index: idx, ledger: st}
}

// Two processes on one store, as two CLI runs or two `serve` replicas: one
// writes and updates notes citing docs/a.md, docs/b.md or both, the other
// forgets docs/a.md over and over, once more after the writer is done. No
// note is lost, every note citing only b.md is live with its evidence,
// every note citing a.md is forgotten (each marked once), the ledger has
// every forget that marked notes, and the index is true to the files (its
// rows and its counts kept on write), on SQLite and on PostgreSQL.
func TestMemoryForgetProcesses(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			if role, arg := testproc.Role(); role != "" {
				var setup procSetup
				if err := json.Unmarshal([]byte(arg), &setup); err != nil {
					t.Fatal(err)
				}
				playNotesRole(t, role, setup)
				testproc.Done(t)
				return
			}
			ws := testws.New(t)
			ws.Write("docs/a.md", "alpha\nfrom a\n")
			ws.Write("docs/b.md", "beta\nfrom b\n")
			setup := procSetup{Root: ws.Root, Store: filepath.Join(t.TempDir(), "retrieve.db"), Out: t.TempDir()}
			if backend == "postgres" {
				setup.Store = pgtest.URL(t, "pgmem_procs")
			}
			// The parent opens the store first: its schema and migrations
			// are in place before the children race.
			p := openNotes(t, setup)
			if _, err := p.svc.Init(context.Background(), memory.InitInput{}); err != nil {
				t.Fatal(err)
			}
			arg, _ := json.Marshal(setup)
			testproc.Run(t, string(arg), roleWriter, roleForgetter)
			checkNotesAfterRace(t, p, setup)
		})
	}
}

func noteSources(i int) (tag string, evidence []string) {
	switch i % 3 {
	case 0:
		return "from-a", []string{"docs/a.md:1"}
	case 1:
		return "from-b", []string{"docs/b.md:2"}
	}
	return "from-both", []string{"docs/a.md:2", "docs/b.md:1"}
}

func noteTier(i int) string {
	if i%2 == 0 {
		return memory.Semantic
	}
	return memory.Episodic
}

const writerDone = "writer.done"

// playNotesRole plays one role in a child process.
func playNotesRole(t *testing.T, role string, setup procSetup) {
	ctx := context.Background()
	o := openNotes(t, setup)
	switch role {
	case roleWriter:
		var prev string
		for i := range procNotes {
			tag, ev := noteSources(i)
			w, err := o.svc.Create(ctx, memory.CreateInput{Type: noteTier(i), Title: fmt.Sprintf("Note %02d", i),
				Content: fmt.Sprintf("Canary fact %d.", i), Tags: []string{tag, "race"}, Evidence: ev})
			if err != nil {
				t.Fatalf("create %d: %v", i, err)
			}
			if prev != "" {
				c := fmt.Sprintf("Canary fact %d, revised.", i-1)
				if _, err := o.svc.Update(ctx, memory.UpdateInput{Target: prev, Content: &c}); err != nil {
					t.Fatalf("update %d: %v", i-1, err)
				}
			}
			prev = w.ID
		}
		if err := os.WriteFile(filepath.Join(setup.Out, writerDone), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	case roleForgetter:
		f, err := os.Create(filepath.Join(setup.Out, "forgets.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		enc := json.NewEncoder(f)
		for run := 0; ; run++ {
			if run > 5000 {
				t.Fatal("the writer never finished")
			}
			_, err := os.Stat(filepath.Join(setup.Out, writerDone))
			last := err == nil
			out, err := o.svc.Forget(ctx, memory.ForgetInput{Source: "docs/a.md", By: "forgetter", Reason: "race"})
			if err != nil {
				t.Fatalf("forget %d: %v", run, err)
			}
			if err := enc.Encode(out); err != nil {
				t.Fatal(err)
			}
			if last {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	default:
		t.Fatalf("no role %q", role)
	}
}

// checkNotesAfterRace checks the store and the folder once both children
// are done; the index first, as the children left it.
func checkNotesAfterRace(t *testing.T, p *notesOpen, setup procSetup) {
	ctx := context.Background()
	dir := p.svc.Dir()
	files := map[string]bool{}
	for _, tier := range []string{memory.Semantic, memory.Episodic} {
		names, _ := filepath.Glob(filepath.Join(setup.Root, dir, tier, "*.md"))
		for _, n := range names {
			files[tier+"/"+filepath.Base(n)] = true
		}
	}
	if len(files) != procNotes {
		t.Fatalf("%d note files, want %d: a note was lost", len(files), procNotes)
	}
	// The last forget refreshed the index after the writer's last write:
	// no row without a file, no file without a row, and the counts kept
	// on write (by another process) are a recount of the notes.
	states, err := p.index.MemoryStates(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for path := range states {
		rows = append(rows, path)
		if !files[path] {
			t.Errorf("index row %s has no file", path)
		}
	}
	if len(rows) != len(files) {
		t.Errorf("%d index rows for %d files", len(rows), len(files))
	}
	want := memory.IndexCounts{Notes: procNotes, ByTier: map[string]int{}, ByTag: map[string]int{"race": procNotes}}
	aNotes := 0
	for i := range procNotes {
		tag, ev := noteSources(i)
		want.ByTier[noteTier(i)]++
		want.ByTag[tag]++
		if strings.HasPrefix(ev[0], "docs/a.md") {
			aNotes++
		}
	}
	checkCounts(t, "the counts kept on write", p.index, dir, want)

	forgets := readForgets(t, filepath.Join(setup.Out, "forgets.jsonl"))
	checkNoteStates(t, p.svc, aNotes)
	checkForgets(t, p.ledger, forgets, aNotes)

	// A reindex from the files gives the same rows, evidence and counts.
	before, err := p.svc.Forget(ctx, memory.ForgetInput{Source: "docs/b.md", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.svc.Reindex(ctx, memory.ReindexInput{}); err != nil {
		t.Fatal(err)
	}
	checkCounts(t, "the counts after a reindex", p.index, dir, want)
	after, err := p.svc.Forget(ctx, memory.ForgetInput{Source: "docs/b.md", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if before.Matched != 2*procNotes/3 || after.Matched != before.Matched {
		t.Errorf("notes citing b.md: %d, after a reindex %d, want %d", before.Matched, after.Matched, 2*procNotes/3)
	}
	checkNoteStates(t, p.svc, aNotes)
}

func checkCounts(t *testing.T, what string, idx memory.Index, dir string, want memory.IndexCounts) {
	t.Helper()
	got, err := idx.MemoryCounts(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Notes != want.Notes || !mapsEqual(got.ByTier, want.ByTier) || !mapsEqual(got.ByTag, want.ByTag) {
		t.Errorf("%s: %+v, a recount gives %+v", what, *got, want)
	}
}

func mapsEqual(a, b map[string]int) bool {
	for k, v := range a {
		if v != 0 && b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}

// checkNoteStates: every note citing a.md is forgotten, every note citing
// b.md only is live with its evidence, as the file and the index say.
func checkNoteStates(t *testing.T, svc *memory.Service, aNotes int) {
	t.Helper()
	ctx := context.Background()
	list, err := svc.List(ctx, memory.ListInput{Tags: []string{"race"}})
	if err != nil || list.Total != procNotes {
		t.Fatalf("list: %v, %+v", err, list)
	}
	forgotten := 0
	for _, e := range list.Entries {
		why, err := svc.Why(ctx, memory.WhyInput{Target: e.ID, NoVerify: true})
		if err != nil {
			t.Fatal(err)
		}
		var refs []string
		for _, ev := range why.Evidence {
			refs = append(refs, ev.Evidence.Reference)
		}
		sort.Strings(refs)
		citesA := slices.ContainsFunc(refs, func(r string) bool { return strings.HasPrefix(r, "docs/a.md") })
		switch {
		case citesA && why.State.Status != memory.StatusForgotten:
			t.Errorf("note %s (%s) cites a.md and is %q after the last forget", e.ID, e.Title, why.State.Status)
		case citesA:
			forgotten++
		case why.State.Retired() || len(refs) != 1 || refs[0] != "docs/b.md:2-2":
			t.Errorf("note %s (%s) of b.md: %q, evidence %v", e.ID, e.Title, why.State.Status, refs)
		}
		if !strings.Contains(why.Title, "Note") {
			t.Errorf("note %s: title %q", e.ID, why.Title)
		}
	}
	if forgotten != aNotes {
		t.Errorf("%d notes forgotten, %d cite a.md", forgotten, aNotes)
	}
}

func readForgets(t *testing.T, path string) []memory.ForgetOutput {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []memory.ForgetOutput
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var o memory.ForgetOutput
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("the forgetter recorded no run")
	}
	return out
}

// checkForgets: each note citing a.md was marked by exactly one run, no run
// matched a note of b.md only, the last run (started after the writer was
// done) matched every note citing a.md, and the ledger holds one
// memory_forget entry per run that marked notes.
func checkForgets(t *testing.T, ledger store.Ledger, forgets []memory.ForgetOutput, aNotes int) {
	t.Helper()
	ctx := context.Background()
	marked, entries := 0, 0
	for i, f := range forgets {
		marked += f.Marked
		for _, n := range f.Notes {
			if len(n.Citing) == 0 || !strings.HasPrefix(n.Citing[0], "docs/a.md") {
				t.Errorf("run %d matched %s, citing %v", i, n.Path, n.Citing)
			}
		}
		if f.Marked == 0 {
			if f.LedgerID != "" {
				t.Errorf("run %d marked nothing and has ledger entry %s", i, f.LedgerID)
			}
			continue
		}
		entries++
		e, err := ledger.Entry(ctx, f.LedgerID)
		if err != nil || e.Op != "memory_forget" || e.Target != "docs/a.md" {
			t.Errorf("run %d (marked %d): ledger entry %q: %v %+v", i, f.Marked, f.LedgerID, err, e)
		}
	}
	last := forgets[len(forgets)-1]
	if marked != aNotes || last.Matched != aNotes || last.Already+last.Marked != aNotes {
		t.Errorf("%d runs marked %d notes, the last matched %d (%d already): want %d", len(forgets), marked, last.Matched, last.Already, aNotes)
	}
	all, err := ledger.Entries(ctx, store.Filter{Op: "memory_forget"})
	if err != nil || len(all) != entries {
		t.Errorf("%d memory_forget entries in the ledger, %d runs marked notes: %v", len(all), entries, err)
	}
	t.Logf("%d forget runs, %d of them marking notes", len(forgets), entries)
}
