package main

import (
	"fmt"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/spf13/cobra"
)

func newInitCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create .retrieve/ in the workspace with a commented config.yaml and the store",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			wrote, err := config.Init(g.Root)
			if err != nil {
				return failStartup(io, retrieve.Errorf(retrieve.CodeInputValidation, "cannot initialise the workspace").WithErr(err).WithHint("check that %s is writable", g.Root))
			}
			app, err := openApp(cmd.Context(), g, storeRequired)
			if err != nil {
				return failStartup(io, err)
			}
			where := app.StoreTarget.String()
			app.Close()
			if wrote {
				fmt.Fprintf(io.ErrOut, "created %s; the store is %s\n", config.Path(g.Root), where)
			} else {
				fmt.Fprintf(io.ErrOut, "%s already exists; left as it is\n", config.Path(g.Root))
			}
			return nil
		},
	}
}
