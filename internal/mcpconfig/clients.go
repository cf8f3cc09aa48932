package mcpconfig

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/retrieve-dev/retrieve"
)

// Scopes of a client's configuration.
const (
	// ScopeProject is a file in the workspace, shared with the team.
	ScopeProject = "project"
	// ScopeUser is the user's own file, for every project.
	ScopeUser = "user"
)

// Client is an MCP client whose configuration file retrieve can write. The
// file formats and places are the clients' documented ones; docs/clients.md
// names the source of each.
type Client struct {
	Name string
	// Title is the client's name for people.
	Title string
	// DefaultScope is the scope used without --scope.
	DefaultScope string
	Format       Format
	// project and user return the file of each scope ("" when the client
	// has no such scope); home and env give the user's folders.
	project func(root string) string
	user    func(e Env) string
	// key is the object or table that holds the servers.
	key string
	// entry builds the server entry from the command and its arguments.
	entry func(command string, args []string) map[string]any
	// rootArg is the --root value of a project-scoped entry: a variable the
	// client expands, or "." when it starts servers in the project folder.
	rootArg string
}

// Env is where the user's files live: the home folder, the OS and the
// environment (APPDATA, XDG_CONFIG_HOME, CODEX_HOME). Tests pass their own.
type Env struct {
	Home   string
	GOOS   string
	Getenv func(string) string
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// configDir is the user's configuration folder of an OS: the one Electron
// apps (Claude Desktop, VS Code) use.
func (e Env) configDir() string {
	switch e.GOOS {
	case "darwin":
		return filepath.Join(e.Home, "Library", "Application Support")
	case "windows":
		if d := e.getenv("APPDATA"); d != "" {
			return d
		}
		return filepath.Join(e.Home, "AppData", "Roaming")
	default:
		if d := e.getenv("XDG_CONFIG_HOME"); d != "" {
			return d
		}
		return filepath.Join(e.Home, ".config")
	}
}

func stdioEntry(command string, args []string) map[string]any {
	return map[string]any{"command": command, "args": toAny(args)}
}

func typedStdioEntry(command string, args []string) map[string]any {
	return map[string]any{"type": "stdio", "command": command, "args": toAny(args)}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// clients is the table of known clients.
var clients = []Client{
	{
		Name: "claude-code", Title: "Claude Code", DefaultScope: ScopeProject, Format: JSON, key: "mcpServers",
		project: func(root string) string { return filepath.Join(root, ".mcp.json") },
		user:    func(e Env) string { return filepath.Join(e.Home, ".claude.json") },
		entry:   typedStdioEntry, rootArg: ".",
	},
	{
		Name: "cursor", Title: "Cursor", DefaultScope: ScopeProject, Format: JSON, key: "mcpServers",
		project: func(root string) string { return filepath.Join(root, ".cursor", "mcp.json") },
		user:    func(e Env) string { return filepath.Join(e.Home, ".cursor", "mcp.json") },
		entry:   stdioEntry, rootArg: "${workspaceFolder}",
	},
	{
		Name: "vscode", Title: "VS Code", DefaultScope: ScopeProject, Format: JSONC, key: "servers",
		project: func(root string) string { return filepath.Join(root, ".vscode", "mcp.json") },
		user:    func(e Env) string { return filepath.Join(e.configDir(), "Code", "User", "mcp.json") },
		entry:   typedStdioEntry, rootArg: "${workspaceFolder}",
	},
	{
		Name: "claude-desktop", Title: "Claude Desktop", DefaultScope: ScopeUser, Format: JSON, key: "mcpServers",
		user:  func(e Env) string { return filepath.Join(e.configDir(), "Claude", "claude_desktop_config.json") },
		entry: stdioEntry,
	},
	{
		Name: "codex", Title: "Codex", DefaultScope: ScopeUser, Format: TOML, key: "mcp_servers",
		project: func(root string) string { return filepath.Join(root, ".codex", "config.toml") },
		user: func(e Env) string {
			if d := e.getenv("CODEX_HOME"); d != "" {
				return filepath.Join(d, "config.toml")
			}
			return filepath.Join(e.Home, ".codex", "config.toml")
		},
		entry: stdioEntry, rootArg: ".",
	},
	{
		// docs.windsurf.com, "Cascade MCP": one file for the user.
		Name: "windsurf", Title: "Windsurf", DefaultScope: ScopeUser, Format: JSON, key: "mcpServers",
		user:  func(e Env) string { return filepath.Join(e.Home, ".codeium", "windsurf", "mcp_config.json") },
		entry: stdioEntry,
	},
	{
		// The Gemini CLI's settings.json (docs/tools/mcp-server.md): the
		// user's ~/.gemini or the project's .gemini. It may start servers
		// elsewhere than the project, so the root is absolute.
		Name: "gemini", Title: "Gemini CLI", DefaultScope: ScopeProject, Format: JSON, key: "mcpServers",
		project: func(root string) string { return filepath.Join(root, ".gemini", "settings.json") },
		user:    func(e Env) string { return filepath.Join(e.Home, ".gemini", "settings.json") },
		entry:   stdioEntry,
	},
	{
		// Zed's settings (JSONC), "context_servers" with a custom command
		// (zed.dev/docs/ai/mcp): ~/.config/zed (%APPDATA%\Zed on Windows)
		// or the project's .zed/settings.json.
		Name: "zed", Title: "Zed", DefaultScope: ScopeUser, Format: JSONC, key: "context_servers",
		project: func(root string) string { return filepath.Join(root, ".zed", "settings.json") },
		user: func(e Env) string {
			if e.GOOS == "windows" {
				return filepath.Join(e.configDir(), "Zed", "settings.json")
			}
			if d := e.getenv("XDG_CONFIG_HOME"); d != "" && e.GOOS != "darwin" {
				return filepath.Join(d, "zed", "settings.json")
			}
			return filepath.Join(e.Home, ".config", "zed", "settings.json")
		},
		entry: stdioEntry,
	},
	{
		// Cline (VS Code extension saoudrizwan.claude-dev): its
		// cline_mcp_settings.json in VS Code's global storage.
		Name: "cline", Title: "Cline", DefaultScope: ScopeUser, Format: JSON, key: "mcpServers",
		user: func(e Env) string {
			return filepath.Join(e.configDir(), "Code", "User", "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json")
		},
		entry: func(command string, args []string) map[string]any {
			return map[string]any{"command": command, "args": toAny(args), "disabled": false}
		},
	},
}

// ClientNames lists the known clients, sorted.
func ClientNames() []string {
	var out []string
	for _, c := range clients {
		out = append(out, c.Name)
	}
	sort.Strings(out)
	return out
}

// Lookup returns the client of a name, or INPUT_VALIDATION_FAILED listing
// the known ones.
func Lookup(name string) (Client, error) {
	for _, c := range clients {
		if c.Name == name {
			return c, nil
		}
	}
	return Client{}, &retrieve.Error{Code: retrieve.CodeInputValidation,
		Message:      "unknown MCP client " + quote(name),
		Hint:         "use --client with one of: " + strings.Join(ClientNames(), ", "),
		Alternatives: ClientNames()}
}

func quote(s string) string { return `"` + s + `"` }

// Server is what a client should start: retrieve's command, and the
// workspace it serves.
type Server struct {
	// Name is the entry's name in the client's file ("retrieve").
	Name string
	// Command is the program: "retrieve" on PATH, an absolute path, or
	// "npx" with the npm package first in Args.
	Command string
	// Prefix are arguments before retrieve's own (["-y", "@pkg/retrieve"]
	// for npx).
	Prefix []string
	// Root is the workspace, an absolute path.
	Root string
	// Serve are arguments after "serve --stdio" (--toolsets read,graph,
	// --read-only).
	Serve []string
}

// ServerEdit returns the edit that adds the server to the client's file of
// a scope ("" for the client's default). A project-scoped entry names the
// workspace as the client expands it (${workspaceFolder}, or "." for a
// client that starts servers in the project); a user-scoped one names the
// absolute root.
func (c Client) ServerEdit(scope string, s Server, env Env) (Edit, error) {
	if scope == "" {
		scope = c.DefaultScope
	}
	var path, root, within string
	switch scope {
	case ScopeProject:
		if c.project == nil {
			return Edit{}, retrieve.Errorf(retrieve.CodeInputValidation, "%s has no project configuration", c.Title).
				WithHint("use --scope user (the default for %s)", c.Name)
		}
		path, root, within = c.project(s.Root), c.rootArg, s.Root
		if root == "" {
			root = s.Root // a client that may start servers elsewhere
		}
	case ScopeUser:
		path, root = c.user(env), s.Root
	default:
		return Edit{}, retrieve.Errorf(retrieve.CodeInputValidation, "unknown scope %s", quote(scope)).
			WithHint("use --scope project or --scope user")
	}
	args := append(append(append([]string{}, s.Prefix...), "--root", root, "serve", "--stdio"), s.Serve...)
	return Edit{Path: path, Format: c.Format, Key: []string{c.key, s.Name}, Value: c.entry(s.Command, args), Within: within}, nil
}

// DefaultEnv is the running user's Env.
func DefaultEnv(goos string) (Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Env{}, retrieve.Errorf(retrieve.CodeInvalidPath, "no home folder: %v", err).WithErr(err).
			WithHint("set HOME, or use --scope project or --print")
	}
	return Env{Home: home, GOOS: goos, Getenv: os.Getenv}, nil
}
