package main

import (
	"context"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/spf13/cobra"
)

func newMemoryCreateCmd(io *Streams, g *globalOptions) *cobra.Command {
	var f noteFlags
	var tier string
	cmd := &cobra.Command{
		Use:   "create --type TIER --title TITLE (--content TEXT | --file PATH|-)",
		Short: "Write a new note with the next id of its tier and day",
		Example: `  retrieve memory create --type semantic --title "Flask Jinja2 Templating" \
      --tag flask --tag python --meta source=https://flask.palletsprojects.com --file notes.md
  retrieve memory create --type semantic --title "Deploys need the staging token" \
      --content "Seen in the deploy guide." --evidence docs/deploy.md:12-20`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMemory(cmd, io, g, f.needsEngine(), func(ctx context.Context, s *memory.Service) error {
				content, _, err := f.content(io)
				if err != nil {
					return err
				}
				meta, err := parseMeta(f.Meta)
				if err != nil {
					return err
				}
				out, err := s.Create(ctx, memory.CreateInput{Type: tier, Title: f.Title, Content: content, Tags: f.Tags, Metadata: meta,
					Evidence: f.Evidence, Session: f.Session, ValidFrom: f.ValidFrom})
				if err != nil {
					return err
				}
				return printWrite(io, g, "created", out)
			})
		},
	}
	cmd.Flags().StringVar(&tier, "type", "", "memory tier: episodic, semantic or procedural")
	cmd.Flags().StringVar(&f.Title, "title", "", "note title")
	cmd.Flags().StringVar(&f.Content, "content", "", "note content (Markdown)")
	cmd.Flags().StringVar(&f.File, "file", "", "read the content from a file (- for stdin)")
	cmd.Flags().StringArrayVar(&f.Tags, "tag", nil, "tag (repeatable, or comma separated)")
	cmd.Flags().StringArrayVar(&f.Meta, "meta", nil, "metadata key=value (repeatable)")
	f.provenanceFlags(cmd, false) // a new note holds until now: update sets --valid-to
	return cmd
}
