package main

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"strings"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/spf13/cobra"
)

// whoAmI names the person running the CLI for the marks and the ledger.
func whoAmI() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username + " (cli)"
	}
	if u := os.Getenv("USER"); u != "" {
		return u + " (cli)"
	}
	return "cli"
}

func newMemoryWhyCmd(io *Streams, g *globalOptions) *cobra.Command {
	var in memory.WhyInput
	cmd := &cobra.Command{
		Use:   "why ID|PATH",
		Short: "Where a note's knowledge came from: its citations, each re-checked now, and its stale/outdated/forgotten marks",
		Example: `  retrieve memory why sem-20260416-001
  retrieve memory why semantic/deploys-need-the-staging-token.md --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Target = args[0]
			return runMemory(cmd, io, g, true, func(ctx context.Context, s *memory.Service) error {
				out, err := s.Why(ctx, in)
				if err != nil {
					return err
				}
				return memoryPrint(io, g, out, func() { printWhy(io, out) })
			})
		},
	}
	cmd.Flags().BoolVar(&in.NoVerify, "no-verify", false, "show the evidence as recorded, without re-checking it")
	return cmd
}

func newMemoryHistoryCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "history ID|PATH",
		Short: "The versions of a note's text over time: each with its file hash and when it was written and replaced",
		Example: `  retrieve memory history sem-20260416-001
  retrieve memory history semantic/deploys-need-the-staging-token.md --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMemory(cmd, io, g, true, func(ctx context.Context, s *memory.Service) error {
				out, err := s.History(ctx, args[0])
				if err != nil {
					return err
				}
				return memoryPrint(io, g, out, func() { printHistory(io, out) })
			})
		},
	}
}

func printHistory(io *Streams, out *memory.HistoryOutput) {
	fmt.Fprintf(io.Out, "%s  %s\n", out.ID, out.Path)
	for _, v := range out.Versions {
		cur := ""
		if v.Current {
			cur = "  (current)"
		}
		fmt.Fprintf(io.Out, "  %s → %s  %s  %s%s\n", v.From, orNow(v.To), v.Hash[:min(12, len(v.Hash))], v.Title, cur)
	}
	if out.Notice != "" {
		fmt.Fprintln(io.Out, out.Notice)
	}
}

func printWhy(io *Streams, out *memory.WhyOutput) {
	fmt.Fprintf(io.Out, "%s  %s  %s\n", out.ID, out.Path, out.Title)
	fmt.Fprintf(io.Out, "status: %s", out.State.Status)
	if out.State.Since != "" {
		fmt.Fprintf(io.Out, " since %s", out.State.Since)
	}
	fmt.Fprintln(io.Out)
	if out.Session != "" {
		fmt.Fprintf(io.Out, "session: %s\n", out.Session)
	}
	fmt.Fprintf(io.Out, "valid: %s → %s\n", out.ValidFrom, orNow(out.ValidTo))
	for _, c := range out.Evidence {
		status := "not re-checked"
		if c.Verification != nil {
			status = c.Verification.Status
		}
		fmt.Fprintf(io.Out, "  %-12s %s  (%s, retrieval %s)\n", status, c.Evidence.Reference, c.Evidence.Hash, c.Evidence.RetrievalID)
		if c.Verification != nil && c.Verification.Diff != "" {
			fmt.Fprint(io.Out, indent(c.Verification.Diff, "      "))
		}
		if c.Verification != nil && c.Verification.Error != nil {
			fmt.Fprintf(io.Out, "      %s: %s\n", c.Verification.Error.Code, c.Verification.Error.Message)
		}
	}
	for _, m := range out.History {
		fmt.Fprintf(io.Out, "  %s  %s by %s: %s %s\n", m.At.Format("2006-01-02T15:04:05Z"), m.Kind, m.By, m.Reason, m.Reference)
	}
	fmt.Fprintln(io.Out, out.Summary)
}

func orNow(s string) string {
	if s == "" {
		return "now"
	}
	return s
}

func indent(s, pre string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString(pre + l)
		}
	}
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	return b.String()
}

func newMemoryVerifyCmd(io *Streams, g *globalOptions) *cobra.Command {
	var in memory.VerifyInput
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Re-check every note's evidence; a note whose evidence changed is marked stale with the diff",
		Long: `verify re-retrieves every citation the notes hold (each distinct citation once,
reusing the ledger's snapshots and the hash cache) and marks a note stale when
one changed or its source is gone, with the diff; a stale note whose evidence
is as cited again is marked fresh. It exits 7 when a note is stale.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMemory(cmd, io, g, true, func(ctx context.Context, s *memory.Service) error {
				out, err := verifyNotes(ctx, io, s, in)
				if err != nil {
					return err
				}
				if err := memoryPrint(io, g, out, func() { printNoteVerify(io, out) }); err != nil {
					return err
				}
				if out.Stale > 0 {
					return &exitError{code: ExitChanged}
				}
				return nil
			})
		},
	}
	cmd.Flags().IntVar(&in.Workers, "workers", 0, "citations re-checked at once (default 8)")
	return cmd
}

// verifyNotes runs memory verify with a progress bar on a terminal.
func verifyNotes(ctx context.Context, io *Streams, s *memory.Service, in memory.VerifyInput) (*memory.VerifyOutput, error) {
	p, done := progress(io, "verifying notes' evidence")
	in.Progress, in.By = p, whoAmI()
	defer done()
	return s.Verify(ctx, in)
}

func printNoteVerify(io *Streams, out *memory.VerifyOutput) {
	for _, c := range out.Checks {
		fmt.Fprintf(io.Out, "%-6s %s  %s (was %s)\n", c.Status, c.ID, c.Path, c.Was)
		for _, v := range c.Changed {
			fmt.Fprintf(io.Out, "  changed: %s\n", v.Reference)
			if v.Diff != "" {
				fmt.Fprint(io.Out, indent(v.Diff, "    "))
			}
		}
		if c.Unavailable > 0 {
			fmt.Fprintf(io.Out, "  %d citations could not be re-checked now\n", c.Unavailable)
		}
	}
	fmt.Fprintf(io.Out, "%d notes, %d citations: %d fresh, %d stale (%d newly), %d with citations not re-checkable now\n",
		out.Notes, out.Citations, out.Fresh, out.Stale, out.NewStale, out.Unknown)
}

func newMemoryForgetCmd(io *Streams, g *globalOptions) *cobra.Command {
	var in memory.ForgetInput
	cmd := &cobra.Command{
		Use:   "forget --source REF [--session ID] [--dry-run]",
		Short: "Tombstone every note derived from a source or a session (kept for audit; the ledger records it)",
		Long: `forget marks forgotten every note whose evidence cites the source (any span of
it; a retrieval id names one ledger entry) or that was written in the session.
Forgotten notes leave default retrieval and stay on disk and in the index for
audit; the ledger records who forgot what and when. --dry-run lists them and
changes nothing. Running it again is safe: notes already forgotten are skipped.`,
		Example: `  retrieve memory forget --source docs/deploy.md --dry-run
  retrieve memory forget --source docs/deploy.md --reason "the guide was wrong"
  retrieve memory forget --session 9ecf22fa-edf8-4332-ae85-b6d5456eda64`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMemory(cmd, io, g, true, func(ctx context.Context, s *memory.Service) error {
				p, done := progress(io, "forgetting notes")
				in.Progress, in.By = p, whoAmI()
				out, err := s.Forget(ctx, in)
				done()
				if err != nil {
					return err
				}
				return memoryPrint(io, g, out, func() { printForget(io, out) })
			})
		},
	}
	cmd.Flags().StringVar(&in.Source, "source", "", "a path, reference or retrieval id: the notes citing it are forgotten")
	cmd.Flags().StringVar(&in.Session, "session", "", "a recorded session: the notes written in it are forgotten")
	cmd.Flags().BoolVar(&in.DryRun, "dry-run", false, "list the notes; change nothing")
	cmd.Flags().StringVar(&in.Reason, "reason", "", "why (recorded with the marks and in the ledger)")
	return cmd
}

func printForget(io *Streams, out *memory.ForgetOutput) {
	for _, n := range out.Notes {
		state := ""
		if n.Already {
			state = "  (already forgotten)"
		}
		fmt.Fprintf(io.Out, "%s  %s  cites %s%s\n", n.ID, n.Path, strings.Join(n.Citing, ", "), state)
	}
	if out.DryRun {
		fmt.Fprintf(io.Out, "dry run: %d notes would be forgotten (%d already are); nothing changed\n", out.Matched-out.Already, out.Already)
		return
	}
	fmt.Fprintf(io.Out, "%d notes forgotten (%d already were) by %s at %s; ledger %s\n", out.Marked, out.Already, out.By, out.At, out.LedgerID)
}

func newMemoryOutdatedCmd(io *Streams, g *globalOptions) *cobra.Command {
	var in memory.OutdatedInput
	cmd := &cobra.Command{
		Use:     "outdated ID|PATH --by REF --reason TEXT",
		Short:   "Mark a note outdated by a citation that contradicts it (it leaves default retrieval, stays for audit)",
		Example: `  retrieve memory outdated sem-20260416-001 --by docs/deploy.md:30-34 --reason "the token is no longer needed"`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Target, in.Who = args[0], whoAmI()
			return runMemory(cmd, io, g, true, func(ctx context.Context, s *memory.Service) error {
				out, err := s.Outdated(ctx, in)
				if err != nil {
					return err
				}
				return memoryPrint(io, g, out, func() {
					fmt.Fprintf(io.Out, "outdated %s  %s  by %s: %s (ledger %s)\n", out.ID, out.Path, out.By.Reference, out.Mark.Reason, out.LedgerID)
				})
			})
		},
	}
	cmd.Flags().StringVar(&in.By, "by", "", "the contradicting citation (path with lines, reference or retrieval id; must resolve)")
	cmd.Flags().StringVar(&in.Reason, "reason", "", "what it contradicts")
	return cmd
}
