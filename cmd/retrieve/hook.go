package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/check"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/session"
	"github.com/spf13/cobra"
)

// Time limits of one hook call: a tool event is recorded in milliseconds;
// the Stop event checks a whole answer.
const (
	hookToolTimeout = 10 * time.Second
	hookStopTimeout = 90 * time.Second
)

// hookLogName is the hook's log in the state directory: its own errors go
// there, never to the agent.
const hookLogName = "hook.log"

func newHookCmd(io *Streams, g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook (claude-code | json)",
		Short: "Record what an agent's own tools read, and check its final answer (agent hooks)",
		Long: `hook reads one hook event as JSON on stdin and records, in the session's
journal, every source the agent saw: the exact span of a file read, with the
hash of those bytes on disk checked against what the tool returned; the names
a listing showed; the URL a fetch was told about. On the Stop event it records
the session's sources in the ledger and, with provenance.check_on_stop: true in
.retrieve/config.yaml, checks every citation of the final answer and blocks the
turn when one fails.

A hook never fails the agent's tool call: its own errors go to .retrieve/hook.log
and it exits 0. The workspace is --root when given, else $CLAUDE_PROJECT_DIR,
else the event's cwd. See docs/sessions.md.`,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "claude-code",
		Short: "Claude Code's hook JSON (PostToolUse Read, Grep, Glob, WebFetch; PostToolUseFailure; Stop)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			runHook(c.Context(), io, g, c.Flag("root").Changed, session.ParseClaudeCode)
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "json",
		Short: "The generic hook schema for other agents (docs/sessions.md)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			runHook(c.Context(), io, g, c.Flag("root").Changed, session.ParseGeneric)
			return nil
		},
	})
	return cmd
}

// hookRun is one hook call: where it logs, and what it prints.
type hookRun struct {
	root string
	log  *os.File
}

func (h *hookRun) logf(format string, args ...any) {
	if h.log == nil {
		if h.root == "" {
			return
		}
		if err := config.EnsureDir(h.root); err != nil {
			return
		}
		f, err := os.OpenFile(filepath.Join(h.root, config.Dir, hookLogName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return
		}
		h.log = f
	}
	fmt.Fprintf(h.log, "%s %s\n", time.Now().UTC().Format(time.RFC3339), retrieve.RedactText(fmt.Sprintf(format, args...)))
}

// runHook never returns an error: whatever happens, the agent's tool call
// goes on (exit 0); what went wrong is logged.
func runHook(ctx context.Context, stdio *Streams, g *globalOptions, rootGiven bool, parse func([]byte) (*session.Event, error)) {
	h := &hookRun{}
	defer func() {
		if r := recover(); r != nil {
			h.logf("panic: %v\n%s", r, debug.Stack())
		}
		if h.log != nil {
			h.log.Close()
		}
	}()
	// The root for logging before the event is parsed.
	h.root = hookRoot(g.Root, rootGiven, "")
	b, err := io.ReadAll(io.LimitReader(stdio.In, session.MaxHookInput+1))
	if err != nil {
		h.logf("error reading the hook input: %v", err)
		return
	}
	if len(b) > session.MaxHookInput {
		h.logf("hook input larger than %d bytes: not recorded", session.MaxHookInput)
		return
	}
	ev, err := parse(b)
	if err != nil {
		h.logf("%s", describeHookErr(err))
		return
	}
	h.root = hookRoot(g.Root, rootGiven, ev.Cwd)
	switch ev.Name {
	case session.EventIgnored:
		h.logf("session %s: ignored: %s", ev.SessionID, ev.Why)
		return
	case session.EventStart:
		if err := hookSessionStart(os.Getenv("CLAUDE_ENV_FILE"), ev.SessionID); err != nil {
			h.logf("session %s: start: %s", ev.SessionID, describeHookErr(err))
		}
		return
	case session.EventStop:
		ctx, cancel := context.WithTimeout(ctx, hookStopTimeout)
		defer cancel()
		hookStop(ctx, stdio, g, h, ev)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, hookToolTimeout)
	defer cancel()
	if err := hookRecord(ctx, h.root, ev); err != nil {
		h.logf("session %s: %s %s: %s", ev.SessionID, ev.Name, ev.Tool, describeHookErr(err))
	}
}

// hookRoot is the workspace of a hook call: --root when given, else
// $CLAUDE_PROJECT_DIR, else the event's cwd, else the current directory.
func hookRoot(flagRoot string, given bool, cwd string) string {
	root := flagRoot
	if !given {
		switch {
		case os.Getenv("CLAUDE_PROJECT_DIR") != "":
			root = os.Getenv("CLAUDE_PROJECT_DIR")
		case cwd != "":
			root = cwd
		}
	}
	if a, err := filepath.Abs(root); err == nil {
		root = a
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return ""
	}
	return root
}

func describeHookErr(err error) string {
	e := retrieve.AsError(err)
	if e.Err != nil {
		return fmt.Sprintf("%s: %s (%v)", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// hookRecord is the fast path of a tool event: no store, no git, only the
// file source (the root and deny list) and the engine's hashing.
func hookRecord(ctx context.Context, root string, ev *session.Event) error {
	if root == "" {
		return retrieve.Errorf(retrieve.CodePathNotFound, "no workspace root: neither --root, $CLAUDE_PROJECT_DIR nor the event's cwd is a directory")
	}
	rec, closeRec, err := openRecorder(root)
	if err != nil {
		return err
	}
	defer closeRec()
	_, err = rec.Record(ctx, ev)
	return err
}

// hookStop records the session's sources in the ledger and, when
// configured, checks the final answer; a block goes to stdout as the
// host's decision JSON.
func hookStop(ctx context.Context, stdio *Streams, g *globalOptions, h *hookRun, ev *session.Event) {
	if h.root == "" {
		h.logf("session %s: stop: no workspace root", ev.SessionID)
		return
	}
	opts := *g
	opts.Root = h.root
	app, err := openApp(ctx, &opts, storeOptional)
	if err != nil {
		h.logf("session %s: stop: %s", ev.SessionID, describeHookErr(err))
		return
	}
	defer app.Close()
	svc := app.sessions()
	out, err := svc.Stop(ctx, ev, session.StopOptions{Check: app.Config.Provenance.CheckOnStop})
	if err != nil {
		h.logf("session %s: stop: %s", ev.SessionID, describeHookErr(err))
	}
	if out == nil {
		return
	}
	for _, n := range out.Notes {
		h.logf("session %s: stop: %s", ev.SessionID, n)
	}
	if ev.Host == "claude-code" {
		if out.Block {
			// Claude Code's Stop decision control: the turn goes on, and the
			// reason is what the agent is told.
			_ = json.NewEncoder(stdio.Out).Encode(map[string]string{"decision": "block", "reason": out.Reason})
		}
		return
	}
	decision := "pass"
	if out.Block {
		decision = "block"
	}
	var failures []check.Finding
	if out.Report != nil {
		failures = out.Report.Failing()
	}
	if failures == nil {
		failures = []check.Finding{}
	}
	_ = json.NewEncoder(stdio.Out).Encode(map[string]any{"decision": decision, "reason": out.Reason, "failures": failures, "notes": out.Notes})
}

// hookSessionStart gives the agent's shell the session's id: Claude Code
// runs the lines a SessionStart hook appends to $CLAUDE_ENV_FILE before
// each Bash command, so `retrieve verify` and `retrieve check` run by the
// agent find RETRIEVE_SESSION_ID and show on the session's page. Without
// the variable (another host, an older Claude Code) it does nothing.
func hookSessionStart(envFile, id string) error {
	if envFile == "" {
		return nil
	}
	f, err := os.OpenFile(envFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open CLAUDE_ENV_FILE: %w", err)
	}
	_, err = fmt.Fprintf(f, "export %s=%s\n", sessionEnv, shellQuote(id))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// shellQuote single-quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
