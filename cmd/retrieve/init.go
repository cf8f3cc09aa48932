package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/spf13/cobra"
)

// initOutput is what `retrieve init --json` prints.
type initOutput struct {
	// Config is the configuration file; Created says whether this run
	// wrote it (an existing one is left as it is).
	Config  string `json:"config"`
	Created bool   `json:"created"`
	// Store is where the ledger and snapshots are kept.
	Store string `json:"store"`
	// Memory is the memory folder and the tiers this run created.
	Memory *memory.InitOutput `json:"memory"`
}

func newInitCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Prepare the workspace: .retrieve/ with a commented config.yaml, the store, and the memory folder",
		Long: `init prepares everything a first run needs, and is safe to run again:
.retrieve/config.yaml (commented; an existing one is left as it is), the store
(.retrieve/retrieve.db unless --store or the config names another), and the
memory folder with its tiers (memory/, or --memory-dir).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			wrote, err := config.Init(g.Root)
			if err != nil {
				return failStartup(io, retrieve.Errorf(retrieve.CodeInputValidation, "cannot initialise the workspace").WithErr(err).WithHint("check that %s is writable", g.Root))
			}
			app, err := openApp(cmd.Context(), g, storeRequired)
			if err != nil {
				return failStartup(io, err)
			}
			out := initOutput{Config: config.Path(g.Root), Created: wrote, Store: app.StoreTarget.String()}
			app.Close()
			var mem *memory.InitOutput
			if err := runKeeper(cmd, io, g, func(ctx context.Context, s *memory.Service) error {
				mem, err = s.Init(ctx, memory.InitInput{})
				return err
			}); err != nil {
				return err
			}
			out.Memory = mem
			if g.JSON {
				return writeJSON(io.Out, out)
			}
			if wrote {
				fmt.Fprintf(io.ErrOut, "created %s; the store is %s\n", out.Config, out.Store)
			} else {
				fmt.Fprintf(io.ErrOut, "%s already exists; left as it is\n", out.Config)
			}
			if mem != nil && len(mem.Created) > 0 {
				fmt.Fprintf(io.ErrOut, "created the memory folder: %s\n", strings.Join(mem.Created, ", "))
			} else if mem != nil {
				fmt.Fprintf(io.ErrOut, "%s/ is already set up\n", mem.Dir)
			}
			return nil
		},
	}
}
