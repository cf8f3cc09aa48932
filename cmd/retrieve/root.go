package main

import (
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/spf13/cobra"
)

// globalOptions are the flags every command shares.
type globalOptions struct {
	Root string
	JSON bool
	YAML bool
	// Store names the store (a SQLite path or a postgres:// URL); see store/stores.
	Store string
	// MemoryDir is the memory folder (--memory-dir); detected when empty.
	MemoryDir string
	// Color is --color: auto, always or never.
	Color string
}

// newRootCmd is the whole command tree: the root and every subcommand.
func newRootCmd(io *Streams) *cobra.Command {
	cmd, g := newBareRootCmd(io)
	for _, sc := range subcommands {
		cmd.AddCommand(sc.build(io, g))
	}
	return cmd
}

// newBareRootCmd is the root command with its persistent flags and no
// subcommand.
func newBareRootCmd(io *Streams) (*cobra.Command, *globalOptions) {
	g := &globalOptions{}
	cmd := &cobra.Command{
		Use:   "retrieve",
		Short: "Fetch a known thing from a known place, with a citation that can be checked",
		Long: `retrieve fetches a file, a git revision, a web page, an API, a database record,
a memory note or a wiki page and returns the data with a citation: reference,
version, sha256 hash, timestamp, freshness, what was cut, and how sure it is.
When it cannot get something it says so with a typed error; it never makes
anything up.`,
		Version:       retrieve.Build().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.SetVersionTemplate("retrieve {{.Version}}\n")
	cmd.PersistentPreRun = func(*cobra.Command, []string) { io.JSON = g.JSON }
	cmd.PersistentFlags().StringVar(&g.Root, "root", ".", "workspace root directory")
	cmd.PersistentFlags().BoolVar(&g.JSON, "json", false, "print JSON")
	cmd.PersistentFlags().BoolVar(&g.YAML, "yaml", false, "print YAML (the default for results)")
	cmd.PersistentFlags().StringVar(&g.MemoryDir, "memory-dir", "", "memory folder, relative to the root (default memory/, or x-ipe-docs/memory/ when that exists)")
	cmd.MarkFlagsMutuallyExclusive("json", "yaml")
	cmd.PersistentFlags().StringVar(&g.Color, "color", "auto", "colour on a terminal: auto (unless NO_COLOR is set), always or never")
	cmd.PersistentFlags().StringVar(&g.Store, "store", "", "the store: a SQLite file or a postgres:// URL (default: $RETRIEVE_STORE, the config's store:, then .retrieve/retrieve.db)")
	return cmd, g
}

// subcommand builds one top-level command; name is its cobra Name
// (TestSubcommandNames checks the two agree).
type subcommand struct {
	name  string
	build func(io *Streams, g *globalOptions) *cobra.Command
}

// subcommands are the top-level commands, in the order help lists them.
var subcommands = []subcommand{
	{"get", func(io *Streams, g *globalOptions) *cobra.Command { return newGetCmd(io, g, nil) }},
	{"init", func(io *Streams, g *globalOptions) *cobra.Command { return newInitCmd(io, g) }},
	{"log", func(io *Streams, g *globalOptions) *cobra.Command { return newLogCmd(io, g) }},
	{"show", func(io *Streams, g *globalOptions) *cobra.Command { return newShowCmd(io, g) }},
	{"snapshot", func(io *Streams, g *globalOptions) *cobra.Command { return newSnapshotCmd(io, g) }},
	{"gc", func(io *Streams, g *globalOptions) *cobra.Command { return newGCCmd(io, g) }},
	{"verify", func(io *Streams, g *globalOptions) *cobra.Command { return newVerifyCmd(io, g) }},
	{"quote", func(io *Streams, g *globalOptions) *cobra.Command { return newQuoteCmd(io, g) }},
	{"store", func(io *Streams, g *globalOptions) *cobra.Command { return newStoreCmd(io, g) }},
	{"ledger", func(io *Streams, g *globalOptions) *cobra.Command { return newLedgerCmd(io, g) }},
	{"export", func(io *Streams, g *globalOptions) *cobra.Command { return newExportCmd(io, g) }},
	{"outline", func(io *Streams, g *globalOptions) *cobra.Command { return newOutlineCmd(io, g) }},
	{"graph", func(io *Streams, g *globalOptions) *cobra.Command { return newGraphCmd(io, g) }},
	{"wiki", func(io *Streams, g *globalOptions) *cobra.Command { return newWikiCmd(io, g) }},
	{"memory", func(io *Streams, g *globalOptions) *cobra.Command { return newMemoryCmd(io, g) }},
	{"serve", func(io *Streams, g *globalOptions) *cobra.Command { return newServeCmd(io, g) }},
	{"version", func(io *Streams, g *globalOptions) *cobra.Command { return newVersionCmd(io, g) }},
	{"mcp", func(io *Streams, g *globalOptions) *cobra.Command { return newMCPCmd(io, g) }},
	{"ui", func(io *Streams, g *globalOptions) *cobra.Command { return newUICmd(io, g) }},
	{"check", func(io *Streams, g *globalOptions) *cobra.Command { return newCheckCmd(io, g) }},
	{"hook", func(io *Streams, g *globalOptions) *cobra.Command { return newHookCmd(io, g) }},
	{"session", func(io *Streams, g *globalOptions) *cobra.Command { return newSessionCmd(io, g) }},
	{"cite", func(io *Streams, g *globalOptions) *cobra.Command { return newCiteCmd(io, g) }},
}

// newRootCmdFor is the command tree that args need. A command line that
// names a top-level command (after the root's own flags) gets the root and
// that command alone: building all of them, each with its flags, costs a
// cold start about 0.2 ms of CPU and 220 KB of fresh heap for nothing. Any
// other command line (help, completion, a typo cobra suggests a command
// for, a flag the root does not know) gets the whole tree.
func newRootCmdFor(io *Streams, args []string) *cobra.Command {
	cmd, g := newBareRootCmd(io)
	name, ok := commandName(cmd, args)
	if ok {
		for _, sc := range subcommands {
			if sc.name == name {
				cmd.AddCommand(sc.build(io, g))
				return cmd
			}
		}
	}
	for _, sc := range subcommands {
		cmd.AddCommand(sc.build(io, g))
	}
	return cmd
}

// commandName is the first argument that is not one of root's flags or
// a flag's value; ok is false when args hold none or a flag root does not
// know (whose value, if any, cannot be told from a command name).
func commandName(root *cobra.Command, args []string) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" {
			return "", false
		}
		if !strings.HasPrefix(a, "-") {
			return a, true
		}
		if !strings.HasPrefix(a, "--") {
			return "", false // a shorthand (-h): root defines none that takes a value
		}
		name, _, hasValue := strings.Cut(a[2:], "=")
		f := root.PersistentFlags().Lookup(name)
		if f == nil {
			return "", false
		}
		if !hasValue && f.Value.Type() != "bool" {
			i++ // the flag's value
		}
	}
	return "", false
}
