package main

import (
	"fmt"

	"github.com/retrieve-dev/retrieve"
	"github.com/spf13/cobra"
)

func newVersionCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date of this binary",
		Long: `Print the version of retrieve with the commit and the date it was built from:
a release's tag, the module version of go install …@vX.Y.Z, or the
pseudo-version and VCS stamp Go records when building in a clone. --json
prints version, commit, date, dirty, go and platform. retrieve --version
prints the same line; MCP serverInfo.version and /healthz report the same
version.`,
		Example: `  retrieve version
  retrieve version --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			b := retrieve.Build()
			if g.JSON {
				return writeJSON(io.Out, b)
			}
			if g.YAML {
				return writeYAML(io.Out, b)
			}
			_, err := fmt.Fprintln(io.Out, "retrieve", b)
			return err
		},
	}
}
