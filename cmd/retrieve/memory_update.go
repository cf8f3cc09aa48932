package main

import (
	"context"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/spf13/cobra"
)

func newMemoryUpdateCmd(io *Streams, g *globalOptions) *cobra.Command {
	var f noteFlags
	var addTags, unset []string
	cmd := &cobra.Command{
		Use:   "update ID|PATH [--title T] [--content C | --file F] [--tag T…] [--add-tag T…] [--meta k=v…] [--unset-meta k…]",
		Short: "Change a note; what is not named stays as it is; `updated` is bumped",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMemory(cmd, io, g, f.needsEngine(), func(ctx context.Context, s *memory.Service) error {
				in := memory.UpdateInput{Target: args[0], AddTags: addTags}
				if cmd.Flags().Changed("title") {
					in.Title = &f.Title
				}
				content, has, err := f.content(io)
				if err != nil {
					return err
				}
				if has || cmd.Flags().Changed("content") {
					in.Content = &content
				}
				if cmd.Flags().Changed("tag") {
					in.Tags = &f.Tags
				}
				meta, err := parseMeta(f.Meta)
				if err != nil {
					return err
				}
				for _, k := range unset {
					if meta == nil {
						meta = map[string]any{}
					}
					meta[k] = nil
				}
				in.Metadata = meta
				in.Evidence, in.Session, in.ValidFrom, in.ValidTo = f.Evidence, f.Session, f.ValidFrom, f.ValidTo
				out, err := s.Update(ctx, in)
				if err != nil {
					return err
				}
				return printWrite(io, g, "updated", out)
			})
		},
	}
	cmd.Flags().StringVar(&f.Title, "title", "", "new title (the file name stays, so citations stay valid)")
	cmd.Flags().StringVar(&f.Content, "content", "", "new content")
	cmd.Flags().StringVar(&f.File, "file", "", "read the new content from a file (- for stdin)")
	cmd.Flags().StringArrayVar(&f.Tags, "tag", nil, "replace the tags (repeatable)")
	cmd.Flags().StringArrayVar(&addTags, "add-tag", nil, "add a tag (repeatable)")
	cmd.Flags().StringArrayVar(&f.Meta, "meta", nil, "merge metadata key=value (repeatable)")
	cmd.Flags().StringArrayVar(&unset, "unset-meta", nil, "remove a metadata key (repeatable)")
	f.provenanceFlags(cmd, true)
	return cmd
}
