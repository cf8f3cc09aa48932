package main

import (
	"slices"
	"testing"
)

// The table of top-level commands names each command as cobra does, and
// holds every command of the whole tree once.
func TestSubcommandNames(t *testing.T) {
	var names []string
	for _, sc := range subcommands {
		c := sc.build(&Streams{}, &globalOptions{})
		if c.Name() != sc.name {
			t.Errorf("subcommands entry %q builds the command %q", sc.name, c.Name())
		}
		if len(c.Aliases) > 0 {
			t.Errorf("%s has aliases %v: commandName would not find it by them", sc.name, c.Aliases)
		}
		names = append(names, sc.name)
	}
	var tree []string
	for _, c := range newRootCmd(&Streams{}).Commands() {
		tree = append(tree, c.Name())
	}
	slices.Sort(names)
	slices.Sort(tree)
	if !slices.Equal(names, tree) {
		t.Errorf("subcommands %v, whole tree %v", names, tree)
	}
}

// A command line gets the root and its one command, or the whole tree when
// the command cannot be told for sure.
func TestRootCmdForBuildsOnlyTheCommandNamed(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string // the commands built; nil: the whole tree
	}{
		{[]string{"get", "small.txt"}, []string{"get"}},
		{[]string{"--root", "get", "log"}, []string{"log"}},
		{[]string{"--root=x", "--json", "verify"}, []string{"verify"}},
		{[]string{"--store", "a.db", "--color", "never", "memory", "list"}, []string{"memory"}},
		{[]string{"--json=false", "ledger"}, []string{"ledger"}},
		{[]string{"help", "get"}, nil},
		{[]string{"completion", "bash"}, nil},
		{[]string{"__complete", "ge"}, nil},
		{[]string{"gte", "small.txt"}, nil},
		{[]string{"--unknown", "get"}, nil},
		{[]string{"-h"}, nil},
		{[]string{"--version"}, nil},
		{[]string{"--root"}, nil},
		{[]string{"--", "get"}, nil},
		{nil, nil},
	} {
		var got []string
		for _, c := range newRootCmdFor(&Streams{}, tc.args).Commands() {
			got = append(got, c.Name())
		}
		want := tc.want
		if want == nil {
			for _, sc := range subcommands {
				want = append(want, sc.name)
			}
		}
		// cobra adds help and completion to a tree when it executes, not
		// before.
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("args %q: built %v, want %v", tc.args, got, want)
		}
	}
}

// A cold `get` builds one command's flags, not every command's.
func BenchmarkRootCmdForGet(b *testing.B) {
	io := &Streams{}
	args := []string{"get", "small.txt"}
	for b.Loop() {
		newRootCmdFor(io, args)
	}
}

// The whole tree, as help and completion build it (BenchmarkRootCmdForGet's
// baseline).
func BenchmarkRootCmdAll(b *testing.B) {
	io := &Streams{}
	for b.Loop() {
		newRootCmd(io)
	}
}
