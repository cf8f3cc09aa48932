package sources_test

import (
	"context"
	"slices"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/source/sources"
	"github.com/retrieve-dev/retrieve/wiki"
)

func kinds(srcs []retrieve.Source) []string {
	var out []string
	for _, s := range srcs {
		out = append(out, s.Kind())
	}
	return out
}

func TestNew(t *testing.T) {
	ws := testws.New(t)
	fs, err := file.OpenWorkspace(ws.Root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	t.Run("OK", func(t *testing.T) {
		srcs, closeAll, err := sources.New(sources.Options{FS: fs,
			Graph: func(context.Context) (graph.Store, error) { return nil, nil }, Wiki: &wiki.Wiki{Dir: ws.Root + "/wiki", FS: fs}})
		if err != nil {
			t.Fatal(err)
		}
		// In resolution order: api before web (its Matcher takes only its
		// hosts), every kind once, so the registry takes them all.
		want := []string{"file", "git", "database", "memory", "graph", "wiki", "api", "web"}
		if got := kinds(srcs); !slices.Equal(got, want) {
			t.Errorf("kinds = %v, want %v", got, want)
		}
		if got := retrieve.NewRegistry(srcs...).Kinds(); len(got) != len(want) {
			t.Errorf("registry kinds = %v", got)
		}
		if err := closeAll(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	t.Run("WithoutGraphAndWiki", func(t *testing.T) {
		srcs, closeAll, err := sources.New(sources.Options{FS: fs})
		if err != nil {
			t.Fatal(err)
		}
		defer closeAll()
		if got := kinds(srcs); slices.Contains(got, "graph") || slices.Contains(got, "wiki") || len(got) != 6 {
			t.Errorf("kinds = %v, want the six sources that need no graph or wiki", got)
		}
	})
	t.Run("ErrNoWorkspace", func(t *testing.T) {
		if _, _, err := sources.New(sources.Options{}); err == nil {
			t.Error("New without a workspace succeeded")
		}
	})
}
