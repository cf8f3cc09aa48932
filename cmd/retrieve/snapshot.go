package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
)

func newSnapshotCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "snapshot HASH",
		Short: "Print the bytes of a snapshot (sha256:<hex>, as in citation.source_hash)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h := args[0]
			if !strings.HasPrefix(h, "sha256:") {
				h = "sha256:" + h
			}
			app, err := openApp(cmd.Context(), g, storeRequired)
			if err != nil {
				return failStartup(io, err)
			}
			defer app.Close()
			rc, err := app.Store.OpenSnapshot(cmd.Context(), h)
			if err != nil {
				return failStartup(io, err)
			}
			defer rc.Close()
			if _, err := copyOut(io.Out, rc); err != nil {
				return failStartup(io, err)
			}
			return nil
		},
	}
}

func copyOut(w io.Writer, r io.Reader) (int64, error) { return io.Copy(w, r) }
