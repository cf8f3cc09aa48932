package ops_test

import (
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// TestToolsetsCoverEveryOp: every op of a full server belongs to exactly
// one toolset, and every toolset names only ops that exist, so each tool is
// reachable through its set.
func TestToolsetsCoverEveryOp(t *testing.T) {
	env := opstest.NewFull(t)
	seen := map[string]string{}
	for set, names := range ops.Toolsets {
		for _, n := range names {
			if other, dup := seen[n]; dup {
				t.Errorf("%s is in the toolsets %s and %s", n, other, set)
			}
			seen[n] = set
			if _, ok := env.Table.Lookup(n); !ok {
				t.Errorf("toolset %s names %s, which is no op", set, n)
			}
		}
	}
	for _, op := range env.Table.Ops() {
		if seen[op.Name] == "" {
			t.Errorf("op %s is in no toolset: add it to ops.Toolsets", op.Name)
		}
		if got := ops.ToolsetOf(op.Name); got != seen[op.Name] {
			t.Errorf("ToolsetOf(%s) = %q, want %q", op.Name, got, seen[op.Name])
		}
	}
}

func TestSelect(t *testing.T) {
	env := opstest.NewFull(t)
	count := func(tb *ops.Table) int { return len(tb.Ops()) }
	t.Run("OK", func(t *testing.T) {
		def, err := env.Table.Select(nil, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, s := range ops.DefaultToolsets {
			want += len(ops.Toolsets[s])
		}
		if count(def) != want {
			t.Errorf("default selection has %d ops, want %d", count(def), want)
		}
		all, _ := env.Table.Select([]string{"all"}, nil, false)
		if count(all) != count(env.Table) {
			t.Errorf("all has %d ops, want %d", count(all), count(env.Table))
		}
		ro, _ := env.Table.Select([]string{"all"}, nil, true)
		for _, op := range ro.Ops() {
			if !op.ReadOnly {
				t.Errorf("read-only selection kept %s", op.Name)
			}
		}
		one, _ := env.Table.Select([]string{"graph"}, []string{"quote"}, false)
		if names := one.Names(); len(names) != 1 || names[0] != "check_quote" {
			t.Errorf("tools quote (an alias) over toolsets graph: %v, want [check_quote]", names)
		}
	})
	t.Run("ErrUnknown", func(t *testing.T) {
		if _, err := env.Table.Select([]string{"nope"}, nil, false); retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
			t.Errorf("toolset nope: %v", err)
		}
		if _, err := env.Table.Select(nil, []string{"nope"}, false); retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
			t.Errorf("tool nope: %v", err)
		}
	})
}
