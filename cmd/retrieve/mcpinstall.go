package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/mcpconfig"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/spf13/cobra"
)

// npmPackage is the npm package whose command is retrieve (npm/).
const npmPackage = "@retrieve-dev/retrieve"

// mcpInstallOptions are the flags of `retrieve mcp install`.
type mcpInstallOptions struct {
	Global  *globalOptions
	Client  string
	Scope   string
	Print   bool
	Force   bool
	Name    string
	Command string
	NPX     bool
	// Toolsets, Tools and ReadOnly are passed to serve.
	Toolsets []string
	Tools    []string
	ReadOnly bool
	// Hooks also writes Claude Code's hooks (docs/sessions.md).
	Hooks bool
	// env is the user's folders; tests set it.
	env *mcpconfig.Env
}

func newMCPCmd(io *Streams, g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Configure MCP clients to start retrieve",
	}
	cmd.AddCommand(newMCPInstallCmd(io, g))
	return cmd
}

func newMCPInstallCmd(io *Streams, g *globalOptions) *cobra.Command {
	opts := &mcpInstallOptions{Global: g}
	cmd := &cobra.Command{
		Use:   "install --client " + strings.Join(mcpconfig.ClientNames(), "|"),
		Short: "Add retrieve to an MCP client's configuration (or --print it)",
		Long: `Write the entry that makes an MCP client start "retrieve serve --stdio" for the
workspace (--root, default the current folder) into the client's configuration
file, merged with what is there: other servers, settings and comments are kept,
and a copy of the file is saved next to it first (FILE.<time>.bak).

Files: claude-code .mcp.json in the workspace (--scope user: ~/.claude.json);
cursor .cursor/mcp.json (user: ~/.cursor/mcp.json); vscode .vscode/mcp.json
(user: the profile's mcp.json); claude-desktop claude_desktop_config.json (user
only); codex ~/.codex/config.toml or $CODEX_HOME/config.toml (--scope project:
.codex/config.toml). --print prints the entry and the file instead of writing.

It refuses a file it cannot parse (JSON, JSONC for VS Code, TOML for Codex), a
read-only file, and an existing "retrieve" entry unless --force. See
docs/clients.md.`,
		Example: `  retrieve mcp install --client claude-code
  retrieve mcp install --client cursor --scope user --force
  retrieve mcp install --client vscode --print
  retrieve mcp install --client claude-desktop --npx`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCPInstall(io, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Client, "client", "", "the client: "+strings.Join(mcpconfig.ClientNames(), ", "))
	f.StringVar(&opts.Scope, "scope", "", "project (a file in the workspace) or user (your file for every project); default per client")
	f.BoolVar(&opts.Print, "print", false, "print the entry and the file it belongs in; write nothing")
	f.BoolVar(&opts.Force, "force", false, "replace an existing entry of the same name")
	f.StringVar(&opts.Name, "name", "retrieve", "the server's name in the client")
	f.StringVar(&opts.Command, "command", "", `the program the client starts (default "retrieve" on PATH; for claude-desktop the absolute path of this binary)`)
	f.BoolVar(&opts.Hooks, "hooks", false, "claude-code: also add retrieve's session hooks to .claude/settings.json (~/.claude/settings.json with --scope user): record what the agent reads, check its final answer (docs/sessions.md)")
	f.StringSliceVar(&opts.Toolsets, "toolsets", nil, "the toolsets the client lists ("+strings.Join(ops.ToolsetNames(), ", ")+"; default "+strings.Join(ops.DefaultToolsets, ",")+"): passed to serve")
	f.StringSliceVar(&opts.Tools, "tools", nil, "only these tools: passed to serve --tools")
	f.BoolVar(&opts.ReadOnly, "read-only", false, "only the tools that change nothing: passed to serve --read-only")
	f.BoolVar(&opts.NPX, "npx", false, "start retrieve with npx -y "+npmPackage+" (for hosts without the binary on PATH)")
	_ = cmd.MarkFlagRequired("client")
	return cmd
}

func runMCPInstall(io *Streams, opts *mcpInstallOptions) error {
	edits, client, err := mcpInstallPlan(opts)
	if err != nil {
		return failStartup(io, err)
	}
	if opts.Print {
		for _, e := range edits {
			snippet, err := mcpconfig.Snippet(e)
			if err != nil {
				return failStartup(io, err)
			}
			if opts.Global.JSON {
				if err := writeJSON(io.Out, map[string]any{"client": client.Name, "path": e.Path, "format": e.Format, "snippet": string(snippet)}); err != nil {
					return err
				}
				continue
			}
			fmt.Fprintf(io.ErrOut, "# %s: add to %s\n", client.Title, e.Path)
			if _, err := io.Out.Write(snippet); err != nil {
				return err
			}
		}
		return nil
	}
	// Every file is checked before any is written (--hooks edits two): an
	// install never stops half-done.
	for _, e := range edits {
		if _, err := mcpconfig.Apply(e, mcpconfig.Options{Force: opts.Force, DryRun: true}); err != nil {
			return failStartup(io, err)
		}
	}
	unchanged := 0
	for _, e := range edits {
		res, err := mcpconfig.Apply(e, mcpconfig.Options{Force: opts.Force})
		if err != nil {
			return failStartup(io, err)
		}
		if opts.Global.JSON {
			if err := writeJSON(io.Out, map[string]any{"client": client.Name, "path": res.Path, "backup": res.Backup, "created": res.Created, "replaced": res.Replaced, "unchanged": res.Unchanged}); err != nil {
				return err
			}
			continue
		}
		if res.Unchanged {
			what, is := fmt.Sprintf("%q", opts.Name), "is"
			if e.Appends != nil {
				what, is = "retrieve's session hooks", "are"
			}
			fmt.Fprintf(io.Out, "%s %s already in %s: nothing written\n", what, is, res.Path)
			unchanged++
			continue
		}
		verb := "added"
		if res.Replaced {
			verb = "replaced"
		}
		what := fmt.Sprintf("%q", opts.Name)
		if e.Appends != nil {
			verb, what = "added", "retrieve's session hooks"
		}
		fmt.Fprintf(io.Out, "%s %s in %s\n", verb, what, res.Path)
		if res.Backup != "" {
			fmt.Fprintf(io.Out, "backup: %s\n", res.Backup)
		}
	}
	if !opts.Global.JSON && unchanged < len(edits) {
		fmt.Fprintf(io.Out, "restart %s (or reload its MCP servers) to start retrieve\n", client.Title)
	}
	return nil
}

// mcpInstallPlan returns the edits of an install: the server entry, and
// with --hooks Claude Code's hooks in .claude/settings.json
// (mcpinstall_hooks.go).
func mcpInstallPlan(opts *mcpInstallOptions) ([]mcpconfig.Edit, mcpconfig.Client, error) {
	client, err := mcpconfig.Lookup(opts.Client)
	if err != nil {
		return nil, client, err
	}
	if strings.TrimSpace(opts.Name) == "" {
		return nil, client, retrieve.Errorf(retrieve.CodeInputValidation, "--name is empty").WithHint("name the server, e.g. --name retrieve")
	}
	root, err := filepath.Abs(opts.Global.Root)
	if err != nil {
		return nil, client, retrieve.Errorf(retrieve.CodeInvalidPath, "bad --root %q", opts.Global.Root).WithErr(err)
	}
	env := opts.env
	if env == nil {
		e, err := mcpconfig.DefaultEnv(runtime.GOOS)
		if err != nil {
			return nil, client, err
		}
		env = &e
	}
	server := mcpconfig.Server{Name: opts.Name, Command: opts.Command, Root: root}
	if err := checkToolSelection(opts.Toolsets, opts.Tools); err != nil {
		return nil, client, err
	}
	if len(opts.Toolsets) > 0 {
		server.Serve = append(server.Serve, "--toolsets", strings.Join(opts.Toolsets, ","))
	}
	if len(opts.Tools) > 0 {
		server.Serve = append(server.Serve, "--tools", strings.Join(opts.Tools, ","))
	}
	if opts.ReadOnly {
		server.Serve = append(server.Serve, "--read-only")
	}
	switch {
	case opts.NPX:
		if opts.Command != "" {
			return nil, client, retrieve.Errorf(retrieve.CodeInputValidation, "--npx and --command both name the program").WithHint("use one of them")
		}
		server.Command, server.Prefix = "npx", []string{"-y", npmPackage}
	case server.Command == "" && client.Name == "claude-desktop":
		// A desktop app does not see the shell's PATH.
		server.Command = "retrieve"
		if exe, err := os.Executable(); err == nil {
			if p, err := filepath.EvalSymlinks(exe); err == nil {
				server.Command = p
			}
		}
	case server.Command == "":
		server.Command = "retrieve"
	}
	edit, err := client.ServerEdit(opts.Scope, server, *env)
	if err != nil {
		return nil, client, err
	}
	edits := []mcpconfig.Edit{edit}
	if opts.Hooks {
		if client.Name != "claude-code" {
			return nil, client, retrieve.Errorf(retrieve.CodeInputValidation, "--hooks is for Claude Code, not %s", client.Title).
				WithHint("other agents feed `retrieve hook json` from their own hooks (docs/sessions.md)")
		}
		hooks, err := claudeCodeHooksEdit(opts.Scope, server, *env)
		if err != nil {
			return nil, client, err
		}
		edits = append(edits, hooks)
	}
	return edits, client, nil
}

// checkToolSelection refuses a toolset name that does not exist at install
// time, not when the client first starts the server. Tool names depend on
// the workspace (memory, graph and wiki tools come with their services), so
// serve checks them.
func checkToolSelection(toolsets, tools []string) error {
	for _, s := range toolsets {
		if _, ok := ops.Toolsets[strings.TrimSpace(s)]; !ok && strings.TrimSpace(s) != "all" {
			return retrieve.Errorf(retrieve.CodeInputValidation, "--toolsets: no toolset %q", s).
				WithHint("toolsets: %s", strings.Join(ops.ToolsetNames(), ", "))
		}
	}
	for _, t := range tools {
		if strings.TrimSpace(t) == "" || strings.ContainsAny(t, " \t\n") {
			return retrieve.Errorf(retrieve.CodeInputValidation, "--tools: %q is not a tool name", t).WithHint("e.g. --tools retrieve,check_quote")
		}
	}
	return nil
}
