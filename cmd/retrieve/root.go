package main

import (
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

func newRootCmd(io *Streams) *cobra.Command {
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
	cmd.AddCommand(newGetCmd(io, g, nil))
	cmd.AddCommand(newInitCmd(io, g))
	cmd.AddCommand(newLogCmd(io, g))
	cmd.AddCommand(newShowCmd(io, g))
	cmd.AddCommand(newSnapshotCmd(io, g))
	cmd.AddCommand(newGCCmd(io, g))
	cmd.AddCommand(newVerifyCmd(io, g))
	cmd.AddCommand(newQuoteCmd(io, g))
	cmd.AddCommand(newStoreCmd(io, g))
	cmd.AddCommand(newLedgerCmd(io, g))
	cmd.AddCommand(newExportCmd(io, g))
	cmd.AddCommand(newOutlineCmd(io, g))
	cmd.AddCommand(newGraphCmd(io, g))
	cmd.AddCommand(newWikiCmd(io, g))
	cmd.AddCommand(newMemoryCmd(io, g))
	cmd.AddCommand(newServeCmd(io, g))
	cmd.AddCommand(newVersionCmd(io, g))
	cmd.AddCommand(newMCPCmd(io, g))
	cmd.AddCommand(newUICmd(io, g))
	cmd.AddCommand(newCheckCmd(io, g))
	cmd.AddCommand(newHookCmd(io, g))
	cmd.AddCommand(newSessionCmd(io, g))
	cmd.AddCommand(newCiteCmd(io, g))
	return cmd
}
