package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"slices"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/store"
)

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// openEverything opens every part the app can open: the engine with its
// store, the graph tools, the memory service with its index and the
// server's services. It returns the app (nil when openApp failed) and the
// first error.
func openEverything(ctx context.Context, g *globalOptions) (*app, error) {
	a, err := openApp(ctx, g, storeRequired)
	if err != nil {
		return nil, err
	}
	if _, err := a.graphTools(ctx); err != nil {
		return a, err
	}
	var errOut bytes.Buffer
	if _, err := a.memory(ctx, &Streams{ErrOut: &errOut}, true, 0); err != nil {
		return a, err
	}
	a.services(ctx, &Streams{ErrOut: &errOut}, slog.New(slog.NewTextHandler(&errOut, nil)))
	return a, nil
}

// TestAppClosesOnEveryFailure injects a failure at each opening step and
// checks that nothing the steps before it opened stays open: the file
// descriptors after the failure (and the app's Close, when the failure
// came after openApp returned) are the ones before.
func TestAppClosesOnEveryFailure(t *testing.T) {
	ws := testws.New(t)
	ws.Write("a.txt", "hello\n")
	ws.InitGit()
	ws.Write("memory/semantic/n.md", "---\ntitle: n\n---\nnote\n")
	g := &globalOptions{Root: ws.Root}
	ctx := context.Background()

	// A full open records the steps, and leaves behind what a process
	// keeps once (the runtime's poller, caches): the baseline is taken
	// after it.
	var steps []string
	openFault = func(s string) error { steps = append(steps, s); return nil }
	defer func() { openFault = nil }()
	a, err := openEverything(ctx, g)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	a.Close()
	for _, want := range []string{"config", "workspace", "target", "store", "sources", "engine", "graph", "memory index", "memory"} {
		if !slices.Contains(steps, want) {
			t.Errorf("the steps %q do not include %q", steps, want)
		}
	}
	base := openFDs(t)

	injected := errors.New("injected")
	tried := map[string]bool{}
	for _, at := range steps {
		if tried[at] {
			continue
		}
		tried[at] = true
		t.Run(at, func(t *testing.T) {
			openFault = func(s string) error {
				if s == at {
					return injected
				}
				return nil
			}
			a, err := openEverything(ctx, g)
			if a == nil {
				if !errors.Is(err, injected) {
					t.Fatalf("openApp failed with %v, want the injected failure", err)
				}
				if got := openFDs(t); got > base {
					t.Fatalf("after a failure at %q: %d descriptors open, want %d", at, got, base)
				}
				return
			}
			if len(a.closers) == 0 {
				t.Fatalf("an open app holds nothing to close")
			}
			a.Close()
			if got := openFDs(t); got > base {
				t.Fatalf("after a failure at %q and Close: %d descriptors open, want %d (err %v)", at, got, base, err)
			}
		})
	}
}

// TestAppGraphIsShared checks that the graph source, the graph tools and
// the server's services share one graph store.
func TestAppGraphIsShared(t *testing.T) {
	ws := testws.New(t)
	ctx := context.Background()
	a, err := openApp(ctx, &globalOptions{Root: ws.Root}, storeRequired)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	tools, err := a.graphTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := a.graph(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if tools.Store != gs {
		t.Fatalf("graph tools store %p, graph source store %p: want one", tools.Store, gs)
	}
	var errOut bytes.Buffer
	s := a.services(ctx, &Streams{ErrOut: &errOut}, slog.New(slog.NewTextHandler(&errOut, nil)))
	if s.Graph == nil || s.Graph.Store != gs {
		t.Fatalf("services graph = %+v, want the shared store (log: %s)", s.Graph, errOut.String())
	}
}

// TestStoreShared checks the store's capability: the embedded SQLite file
// is one user's.
func TestStoreShared(t *testing.T) {
	ws := testws.New(t)
	a, err := openApp(context.Background(), &globalOptions{Root: ws.Root}, storeRequired)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if store.IsShared(a.Store) {
		t.Fatalf("IsShared(SQLite store) = true, want false")
	}
	if store.IsShared(nil) {
		t.Fatalf("IsShared(nil) = true, want false")
	}
}
