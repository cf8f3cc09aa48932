package main

import (
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/wiki"
	"github.com/spf13/cobra"
)

func newWikiLintCmd(io *Streams, g *globalOptions) *cobra.Command {
	var strict bool
	cmd := &cobra.Command{
		Use:   "lint",
		Short: "Check the wiki: orphan pages, missing pages, broken wikilinks, isolated pages",
		Long: `lint reports the wiki's orphan pages (not in index.md), missing pages (index
rows with no file), broken wikilinks and isolated pages (no link in or out).

Exit codes, for CI: 0 when no link points to nothing; 7 when a wikilink is
broken or an index row names a missing page (the report is still printed);
with --strict, orphan and isolated pages fail too. Other failures use the
exit codes of docs/CONTRACT.md.`,
		Example: `  retrieve wiki lint --json
  retrieve wiki lint --strict || echo "the wiki needs fixing"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var report *wiki.LintOutput
			err := runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) {
				r, err := t.Wiki.Lint(cmd.Context())
				report = r
				return r, err
			})
			if err != nil || report == nil {
				return err
			}
			if lintFails(report, strict) {
				return &exitError{code: ExitChanged}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "fail on orphan and isolated pages too")
	return cmd
}

// lintFails reports whether a lint report fails a CI run: links to
// nothing always, pages nobody links to only when strict.
func lintFails(r *wiki.LintOutput, strict bool) bool {
	if len(r.BrokenWikilinks) > 0 || len(r.MissingPages) > 0 {
		return true
	}
	return strict && (len(r.OrphanPages) > 0 || len(r.IsolatedPages) > 0)
}
