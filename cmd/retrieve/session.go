package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/session"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newSessionCmd(io *Streams, g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session (list | show ID | verify ID)",
		Short: "Agent sessions recorded by the hooks: what the agent read, re-checked",
		Long: `session lists the agent sessions that retrieve's hooks recorded (docs/sessions.md),
shows every source a session's agent saw, and verifies them all in one run:
verified, changed (with a diff of what the agent saw against now) or
unavailable (with the reason). verify exits 0 when every source is verified,
7 when one changed.`,
	}
	// withService runs fn on the workspace's session service; a failure to
	// open or fn's error is printed as a startup failure.
	withService := func(ctx context.Context, fn func(*session.Service) error) error {
		a, err := openApp(ctx, g, storeOptional)
		if err != nil {
			return failStartup(io, err)
		}
		defer a.Close()
		return fn(a.sessions())
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the recorded sessions, most recent first",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return withService(c.Context(), func(svc *session.Service) error {
				list, err := svc.List(c.Context())
				if err != nil {
					return failStartup(io, err)
				}
				if g.JSON || g.YAML {
					return writeResult(io.Out, g, map[string]any{"sessions": list})
				}
				tw := newTable(io.Out, 2, 2)
				fmt.Fprintln(tw, "SESSION\tHOST\tUPDATED\tSOURCES\tFAILED CALLS\tBLOCKED")
				for _, s := range list {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\n", s.ID, s.Host, retrieve.Timestamp(s.Updated), s.SourceCount, s.FailedCalls, s.Blocked)
				}
				return tw.Flush()
			})
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "show SESSION_ID",
		Short: "Every source a session's agent saw (recording them in the ledger)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return withService(c.Context(), func(svc *session.Service) error {
				s, err := svc.Show(c.Context(), args[0])
				if err != nil {
					return failStartup(io, err)
				}
				return writeResult(io.Out, g, s)
			})
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "verify SESSION_ID",
		Short: "Re-check every source of a session: verified, changed (with a diff) or unavailable",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return withService(c.Context(), func(svc *session.Service) error {
				v, err := svc.Verify(c.Context(), args[0])
				if err != nil {
					return failStartup(io, err)
				}
				if g.JSON || g.YAML {
					if err := writeResult(io.Out, g, v); err != nil {
						return err
					}
				} else {
					writeSessionVerification(io, v)
				}
				switch {
				case v.Changed > 0:
					return &exitError{code: ExitChanged}
				case v.Unavailable > 0:
					return &exitError{code: ExitNotFound}
				}
				return nil
			})
		},
	})
	return cmd
}

func writeSessionVerification(io *Streams, v *session.Verification) {
	tw := newTable(io.Out, 2, 2)
	fmt.Fprintln(tw, "STATUS\tKIND\tTOOL\tREFERENCE\tDETAIL")
	for _, c := range v.Sources {
		detail := ""
		switch {
		case c.Verification.Error != nil:
			detail = fmt.Sprintf("%s: %s", c.Verification.Error.Code, c.Verification.Error.Message)
		case c.Source.Seen == session.SeenMismatch:
			detail = "the tool returned other text than the file held"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", strings.ToUpper(c.Verification.Status), c.Source.Kind, c.Source.Tool, c.Source.Reference, detail)
	}
	_ = tw.Flush()
	for _, c := range v.Sources {
		if c.Verification.Diff != "" {
			fmt.Fprintf(io.Out, "\n%s", c.Verification.Diff)
		}
	}
	fmt.Fprintf(io.Out, "\nsession %s: %d verified, %d changed, %d unavailable\n", v.SessionID, v.Verified, v.Changed, v.Unavailable)
}

// sessionEnv names the agent session a command runs in when --session is
// not given. `retrieve hook claude-code` sets it for the agent's shell on
// SessionStart (through Claude Code's CLAUDE_ENV_FILE).
const sessionEnv = "RETRIEVE_SESSION_ID"

// addSessionFlag adds --session to a command whose runs join a session.
func addSessionFlag(f *pflag.FlagSet, p *string) {
	f.StringVar(p, "session", "", "record this run on an agent session's page (default $"+sessionEnv+")")
}

// joinSession records a run on the session --session or $RETRIEVE_SESSION_ID
// names, if any, through record. A failure to record does not fail the
// command: it is said on stderr.
func joinSession(io *Streams, flag string, record func(id string) error) {
	id := flag
	if id == "" {
		id = strings.TrimSpace(os.Getenv(sessionEnv))
	}
	if id == "" {
		return
	}
	if err := record(id); err != nil {
		fmt.Fprintf(io.ErrOut, "warning: not recorded on session %s: %s\n", id, retrieve.AsError(err).Message)
	}
}
