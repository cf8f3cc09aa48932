package mcpconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pelletier/go-toml/v2"
	"github.com/retrieve-dev/retrieve"
	"github.com/tailscale/hujson"
)

func testEnv(t *testing.T, goos string, vars map[string]string) Env {
	return Env{Home: t.TempDir(), GOOS: goos, Getenv: func(k string) string { return vars[k] }}
}

// decode reads a client file as plain data (JSON, JSONC or TOML).
func decode(t *testing.T, format Format, b []byte) map[string]any {
	t.Helper()
	var out map[string]any
	if format == TOML {
		if err := toml.Unmarshal(b, &out); err != nil {
			t.Fatalf("written TOML does not parse: %v\n%s", err, b)
		}
		return roundTripTOML(out).(map[string]any)
	}
	if format == JSON && !json.Valid(b) {
		t.Fatalf("written file is not strict JSON:\n%s", b)
	}
	std, err := hujson.Standardize(append([]byte(nil), b...))
	if err != nil {
		t.Fatalf("written file does not parse: %v\n%s", err, b)
	}
	if err := json.Unmarshal(std, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func code(err error) retrieve.Code {
	var e *retrieve.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// TestInstallIntoDocumentedFiles merges the entry into a fixture of each
// client's documented format, at the path of each scope, and checks that
// nothing else changed, comments survive, and the backup is the original.
func TestInstallIntoDocumentedFiles(t *testing.T) {
	for _, tc := range []struct {
		client, scope, fixture string
		wantPath               func(root string, e Env) string
		wantEntry              map[string]any
		keep                   []string // text that must survive (comments)
	}{
		{"claude-code", "", "claude-code.mcp.json", func(r string, e Env) string { return filepath.Join(r, ".mcp.json") },
			map[string]any{"type": "stdio", "command": "retrieve", "args": []any{"--root", ".", "serve", "--stdio"}}, nil},
		{"claude-code", ScopeUser, "claude-code.claude.json", func(r string, e Env) string { return filepath.Join(e.Home, ".claude.json") },
			map[string]any{"type": "stdio", "command": "retrieve", "args": []any{"--root", "ROOT", "serve", "--stdio"}}, nil},
		{"cursor", "", "cursor.mcp.json", func(r string, e Env) string { return filepath.Join(r, ".cursor", "mcp.json") },
			map[string]any{"command": "retrieve", "args": []any{"--root", "${workspaceFolder}", "serve", "--stdio"}}, nil},
		{"cursor", ScopeUser, "cursor.mcp.json", func(r string, e Env) string { return filepath.Join(e.Home, ".cursor", "mcp.json") },
			map[string]any{"command": "retrieve", "args": []any{"--root", "ROOT", "serve", "--stdio"}}, nil},
		{"vscode", "", "vscode.mcp.json", func(r string, e Env) string { return filepath.Join(r, ".vscode", "mcp.json") },
			map[string]any{"type": "stdio", "command": "retrieve", "args": []any{"--root", "${workspaceFolder}", "serve", "--stdio"}},
			[]string{"// Workspace MCP servers", "// trailing comment"}},
		{"vscode", ScopeUser, "vscode.mcp.json", func(r string, e Env) string { return filepath.Join(e.Home, ".config", "Code", "User", "mcp.json") },
			map[string]any{"type": "stdio", "command": "retrieve", "args": []any{"--root", "ROOT", "serve", "--stdio"}}, nil},
		{"claude-desktop", "", "claude-desktop.json", func(r string, e Env) string {
			return filepath.Join(e.Home, ".config", "Claude", "claude_desktop_config.json")
		}, map[string]any{"command": "retrieve", "args": []any{"--root", "ROOT", "serve", "--stdio"}}, nil},
		{"codex", "", "codex.config.toml", func(r string, e Env) string { return filepath.Join(e.Home, ".codex", "config.toml") },
			map[string]any{"command": "retrieve", "args": []any{"--root", "ROOT", "serve", "--stdio"}},
			[]string{"# Codex configuration", "# keep this comment", `[projects."/home/me/app"]`}},
		{"codex", ScopeProject, "codex.config.toml", func(r string, e Env) string { return filepath.Join(r, ".codex", "config.toml") },
			map[string]any{"command": "retrieve", "args": []any{"--root", ".", "serve", "--stdio"}}, nil},
		{"windsurf", "", "windsurf.mcp_config.json", func(r string, e Env) string { return filepath.Join(e.Home, ".codeium", "windsurf", "mcp_config.json") },
			map[string]any{"command": "retrieve", "args": []any{"--root", "ROOT", "serve", "--stdio"}}, nil},
		{"gemini", "", "gemini.settings.json", func(r string, e Env) string { return filepath.Join(r, ".gemini", "settings.json") },
			map[string]any{"command": "retrieve", "args": []any{"--root", "ROOT", "serve", "--stdio"}}, nil},
		{"gemini", ScopeUser, "gemini.settings.json", func(r string, e Env) string { return filepath.Join(e.Home, ".gemini", "settings.json") },
			map[string]any{"command": "retrieve", "args": []any{"--root", "ROOT", "serve", "--stdio"}}, nil},
		{"zed", "", "zed.settings.json", func(r string, e Env) string { return filepath.Join(e.Home, ".config", "zed", "settings.json") },
			map[string]any{"command": "retrieve", "args": []any{"--root", "ROOT", "serve", "--stdio"}},
			[]string{"// Zed settings", "// keep this comment"}},
		{"zed", ScopeProject, "zed.settings.json", func(r string, e Env) string { return filepath.Join(r, ".zed", "settings.json") },
			map[string]any{"command": "retrieve", "args": []any{"--root", "ROOT", "serve", "--stdio"}}, []string{"// keep this comment"}},
		{"cline", "", "cline.mcp_settings.json", func(r string, e Env) string {
			return filepath.Join(e.Home, ".config", "Code", "User", "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json")
		}, map[string]any{"command": "retrieve", "args": []any{"--root", "ROOT", "serve", "--stdio"}, "disabled": false}, nil},
	} {
		t.Run(tc.client+"/"+tc.scope, func(t *testing.T) {
			c, err := Lookup(tc.client)
			if err != nil {
				t.Fatal(err)
			}
			env := testEnv(t, "linux", nil)
			root := t.TempDir()
			e, err := c.ServerEdit(tc.scope, Server{Name: "retrieve", Command: "retrieve", Root: root}, env)
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.wantPath(root, env); e.Path != want {
				t.Fatalf("path %s, want %s", e.Path, want)
			}
			orig, err := os.ReadFile(filepath.Join("testdata", tc.fixture))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(e.Path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(e.Path, orig, 0o600); err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
			res, err := Apply(e, Options{Now: now})
			if err != nil {
				t.Fatal(err)
			}
			if res.Created || res.Replaced || res.Backup != e.Path+".20261124T090000Z.bak" {
				t.Errorf("result %+v", res)
			}
			if b, _ := os.ReadFile(res.Backup); !bytes.Equal(b, orig) {
				t.Errorf("backup differs from the original")
			}
			if info, _ := os.Stat(e.Path); info.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want the original 0600", info.Mode().Perm())
			}
			got, _ := os.ReadFile(e.Path)
			after, before := decode(t, c.Format, got), decode(t, c.Format, orig)
			entry := after[e.Key[0]].(map[string]any)["retrieve"]
			want := roundTripTOML(tc.wantEntry)
			if args := want.(map[string]any)["args"].([]any); args[1] == "ROOT" {
				args[1] = root
			}
			if diff := cmp.Diff(want, entry); diff != "" {
				t.Errorf("entry (-want +got):\n%s", diff)
			}
			delete(after[e.Key[0]].(map[string]any), "retrieve")
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("other content changed (-before +after):\n%s", diff)
			}
			for _, k := range tc.keep {
				if !strings.Contains(string(got), k) {
					t.Errorf("lost %q:\n%s", k, got)
				}
			}

			// Again, the same entry: nothing to do, nothing written.
			res2, err := Apply(e, Options{})
			if err != nil || !res2.Unchanged || res2.Backup != "" {
				t.Fatalf("second install of the same entry: %+v, %v; want unchanged", res2, err)
			}
			if b, _ := os.ReadFile(e.Path); !bytes.Equal(b, got) {
				t.Error("a second install of the same entry changed the file")
			}
			// Another entry under the name: refused, file unchanged.
			other := e
			other.Value = c.entry("/opt/other", []string{"serve", "--stdio", "--read-only"})
			_, err = Apply(other, Options{})
			if code(err) != retrieve.CodeInvalidOperation || !strings.Contains(err.Error(), "already has") {
				t.Fatalf("install of another entry: %v, want INVALID_OPERATION", err)
			}
			if b, _ := os.ReadFile(e.Path); !bytes.Equal(b, got) {
				t.Error("refused install changed the file")
			}
			// --force replaces it, with a backup of the file that had it.
			e.Value = c.entry("/opt/retrieve", []string{"serve", "--stdio"})
			res, err = Apply(e, Options{Force: true, Now: now.Add(time.Second)})
			if err != nil || !res.Replaced {
				t.Fatalf("force: %+v, %v", res, err)
			}
			if b, _ := os.ReadFile(res.Backup); !bytes.Equal(b, got) {
				t.Error("the force backup is not the file before it")
			}
			final, _ := os.ReadFile(e.Path)
			fa := decode(t, c.Format, final)
			if cmd := fa[e.Key[0]].(map[string]any)["retrieve"].(map[string]any)["command"]; cmd != "/opt/retrieve" {
				t.Errorf("forced entry command %v", cmd)
			}
			delete(fa[e.Key[0]].(map[string]any), "retrieve")
			if diff := cmp.Diff(before, fa); diff != "" {
				t.Errorf("force changed other content (-before +after):\n%s", diff)
			}
		})
	}
}

func TestInstallCreatesFile(t *testing.T) {
	c, _ := Lookup("claude-code")
	root := t.TempDir()
	e, err := c.ServerEdit("", Server{Name: "retrieve", Command: "retrieve", Root: root}, testEnv(t, "linux", nil))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Apply(e, Options{})
	if err != nil || !res.Created || res.Backup != "" {
		t.Fatalf("%+v, %v", res, err)
	}
	got, _ := os.ReadFile(filepath.Join(root, ".mcp.json"))
	snippet, _ := Snippet(e)
	if !bytes.Equal(got, snippet) {
		t.Errorf("created file\n%s\nis not the printed snippet\n%s", got, snippet)
	}
	// Codex, no file and no folder: a TOML file with one table.
	c, _ = Lookup("codex")
	env := testEnv(t, "linux", map[string]string{"CODEX_HOME": filepath.Join(t.TempDir(), "codex-home")})
	e, _ = c.ServerEdit("", Server{Name: "retrieve", Command: "retrieve", Root: root}, env)
	if _, err := Apply(e, Options{}); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(filepath.Join(env.Getenv("CODEX_HOME"), "config.toml"))
	want := "[mcp_servers.retrieve]\ncommand = 'retrieve'\nargs = ['--root', '" + root + "', 'serve', '--stdio']\n"
	if string(got) != want {
		t.Errorf("codex file:\n%s\nwant\n%s", got, want)
	}
}

func TestInstallRefusals(t *testing.T) {
	cases := []struct {
		name, client, content string
		mode                  os.FileMode
		want                  retrieve.Code
	}{
		{"invalid JSON", "claude-code", `{"mcpServers": {`, 0o644, retrieve.CodeParseFailed},
		{"comments in strict JSON", "cursor", "{\n // c\n \"mcpServers\": {}\n}\n", 0o644, retrieve.CodeParseFailed},
		{"invalid JSONC", "vscode", "{ // c\n \"servers\": { \n", 0o644, retrieve.CodeParseFailed},
		{"top level array", "claude-code", `[1, 2]`, 0o644, retrieve.CodeParseFailed},
		{"servers not an object", "claude-code", `{"mcpServers": ["x"]}`, 0o644, retrieve.CodeParseFailed},
		{"invalid TOML", "codex", "[mcp_servers\ncommand = 1\n", 0o644, retrieve.CodeParseFailed},
		{"inline TOML entry", "codex", "mcp_servers = { retrieve = { command = \"x\" } }\n", 0o644, retrieve.CodeInvalidOperation},
		{"read-only", "claude-code", `{"mcpServers": {}}`, 0o444, retrieve.CodePermissionDenied},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := Lookup(tc.client)
			root := t.TempDir()
			e, err := c.ServerEdit(ScopeProject, Server{Name: "retrieve", Command: "retrieve", Root: root}, testEnv(t, "linux", nil))
			if err != nil {
				t.Fatal(err)
			}
			_ = os.MkdirAll(filepath.Dir(e.Path), 0o755)
			if err := os.WriteFile(e.Path, []byte(tc.content), tc.mode); err != nil {
				t.Fatal(err)
			}
			force := tc.name == "inline TOML entry"
			_, err = Apply(e, Options{Force: force})
			if code(err) != tc.want {
				t.Fatalf("err = %v, want %s", err, tc.want)
			}
			var re *retrieve.Error
			if errors.As(err, &re); re.Hint == "" {
				t.Error("no hint")
			}
			if b, _ := os.ReadFile(e.Path); string(b) != tc.content {
				t.Error("the refused file changed")
			}
			if m, _ := filepath.Glob(e.Path + ".*.bak"); len(m) != 0 {
				t.Errorf("backup written on refusal: %v", m)
			}
		})
	}
}

func TestCodexForceCutsSubTables(t *testing.T) {
	c, _ := Lookup("codex")
	env := testEnv(t, "linux", nil)
	e, _ := c.ServerEdit("", Server{Name: "retrieve", Command: "retrieve", Root: "/w"}, env)
	orig := "model = \"m\"\n\n[mcp_servers.retrieve]\ncommand = \"old\"\n\n[mcp_servers.retrieve.env]\nA = \"1\"\n\n[mcp_servers.other]\ncommand = \"o\" # mine\n"
	_ = os.MkdirAll(filepath.Dir(e.Path), 0o755)
	_ = os.WriteFile(e.Path, []byte(orig), 0o644)
	if _, err := Apply(e, Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(e.Path)
	m := decode(t, TOML, got)
	servers := m["mcp_servers"].(map[string]any)
	want := map[string]any{"command": "retrieve", "args": []any{"--root", "/w", "serve", "--stdio"}}
	if !reflect.DeepEqual(servers["retrieve"], want) || servers["other"] == nil || m["model"] != "m" {
		t.Errorf("got %v", m)
	}
	if !strings.Contains(string(got), `command = "o" # mine`) || strings.Contains(string(got), "old") {
		t.Errorf("file:\n%s", got)
	}
}

func TestLookupAndScopes(t *testing.T) {
	_, err := Lookup("emacs")
	var re *retrieve.Error
	all := []string{"claude-code", "claude-desktop", "cline", "codex", "cursor", "gemini", "vscode", "windsurf", "zed"}
	if !errors.As(err, &re) || re.Code != retrieve.CodeInputValidation || !reflect.DeepEqual(re.Alternatives, all) ||
		!strings.Contains(re.Hint, strings.Join(all, ", ")) {
		t.Fatalf("err = %#v", err)
	}
	desk, _ := Lookup("claude-desktop")
	if _, err := desk.ServerEdit(ScopeProject, Server{Name: "retrieve", Command: "r", Root: "/w"}, testEnv(t, "linux", nil)); code(err) != retrieve.CodeInputValidation {
		t.Errorf("claude-desktop project scope: %v", err)
	}
	if _, err := desk.ServerEdit("team", Server{Name: "retrieve", Command: "r", Root: "/w"}, testEnv(t, "linux", nil)); code(err) != retrieve.CodeInputValidation {
		t.Errorf("unknown scope: %v", err)
	}
	// The user files of each OS.
	for _, tc := range []struct {
		client, goos string
		vars         map[string]string
		want         string // relative to home, or absolute when it starts with /
	}{
		{"claude-desktop", "darwin", nil, "Library/Application Support/Claude/claude_desktop_config.json"},
		{"claude-desktop", "windows", map[string]string{"APPDATA": "/appdata"}, "/appdata/Claude/claude_desktop_config.json"},
		{"claude-desktop", "linux", map[string]string{"XDG_CONFIG_HOME": "/xdg"}, "/xdg/Claude/claude_desktop_config.json"},
		{"vscode", "darwin", nil, "Library/Application Support/Code/User/mcp.json"},
		{"zed", "darwin", nil, ".config/zed/settings.json"},
		{"zed", "linux", map[string]string{"XDG_CONFIG_HOME": "/xdg"}, "/xdg/zed/settings.json"},
		{"zed", "windows", map[string]string{"APPDATA": "/appdata"}, "/appdata/Zed/settings.json"},
		{"cline", "darwin", nil, "Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"},
		{"windsurf", "windows", nil, ".codeium/windsurf/mcp_config.json"},
		{"vscode", "windows", nil, "AppData/Roaming/Code/User/mcp.json"},
		{"codex", "linux", map[string]string{"CODEX_HOME": "/ch"}, "/ch/config.toml"},
		{"claude-code", "windows", nil, ".claude.json"},
	} {
		c, _ := Lookup(tc.client)
		env := testEnv(t, tc.goos, tc.vars)
		e, err := c.ServerEdit(ScopeUser, Server{Name: "retrieve", Command: "r", Root: "/w"}, env)
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.FromSlash(tc.want)
		if !strings.HasPrefix(tc.want, "/") {
			want = filepath.Join(env.Home, want)
		}
		if e.Path != want {
			t.Errorf("%s on %s: %s, want %s", tc.client, tc.goos, e.Path, want)
		}
	}
}

// FuzzSetJSON: any input is refused with PARSE_FAILED or INVALID_OPERATION,
// or gives a file that parses and holds the entry.
func FuzzSetJSON(f *testing.F) {
	for _, name := range []string{"claude-code.mcp.json", "vscode.mcp.json", "cursor.mcp.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, true)
	}
	f.Add([]byte(`{"mcpServers": {"retrieve": 1}}`), false)
	f.Add([]byte("\xff{"), true)
	f.Fuzz(func(t *testing.T, src []byte, jsonc bool) {
		e := Edit{Path: "x.json", Format: JSON, Key: []string{"mcpServers", "retrieve"}, Value: map[string]any{"command": "retrieve"}}
		if jsonc {
			e.Format = JSONC
		}
		out, _, err := setJSON(e, src, true)
		if err != nil {
			if c := code(err); c != retrieve.CodeParseFailed && c != retrieve.CodeInvalidOperation {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		std, err := hujson.Standardize(out)
		if err != nil {
			t.Fatalf("output does not parse: %v\n%s", err, out)
		}
		var m map[string]any
		if err := json.Unmarshal(std, &m); err != nil {
			t.Fatal(err)
		}
		if m["mcpServers"].(map[string]any)["retrieve"].(map[string]any)["command"] != "retrieve" {
			t.Fatalf("entry missing:\n%s", out)
		}
	})
}

// FuzzSetTOML: the same for Codex's TOML.
func FuzzSetTOML(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "codex.config.toml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("[mcp_servers.retrieve]\ncommand = 'x'\n[mcp_servers.retrieve.env]\nA='1'\n"))
	f.Add([]byte("mcp_servers.retrieve.command = 'x'\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		e := Edit{Path: "c.toml", Format: TOML, Key: []string{"mcp_servers", "retrieve"}, Value: map[string]any{"command": "retrieve"}}
		out, _, err := setTOML(e, src, true)
		if err != nil {
			if c := code(err); c != retrieve.CodeParseFailed && c != retrieve.CodeInvalidOperation {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		var m map[string]any
		if err := toml.Unmarshal(out, &m); err != nil {
			t.Fatalf("output does not parse: %v\n%s", err, out)
		}
		if lookup(m, []string{"mcp_servers", "retrieve", "command"}) != "retrieve" {
			t.Fatalf("entry missing:\n%s", out)
		}
	})
}

func TestSymlinkedConfig(t *testing.T) {
	c, _ := Lookup("claude-code")
	env := testEnv(t, "linux", nil)
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(outside, []byte(`{"mcpServers": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// A project file linked out of the workspace (a hostile repository).
	if err := os.Symlink(outside, filepath.Join(root, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	e, _ := c.ServerEdit("", Server{Name: "retrieve", Command: "retrieve", Root: root}, env)
	if _, err := Apply(e, Options{}); code(err) != retrieve.CodeOutsideRoot {
		t.Fatalf("err = %v, want OUTSIDE_ROOT", err)
	}
	if b, _ := os.ReadFile(outside); string(b) != `{"mcpServers": {}}` {
		t.Error("the linked file changed")
	}
	if m, _ := filepath.Glob(filepath.Join(root, "*.bak")); len(m) != 0 {
		t.Errorf("backup copied the outside file into the workspace: %v", m)
	}
	// A user file kept by a dotfiles manager: written where it points, the link stays.
	dots := filepath.Join(t.TempDir(), "claude.json")
	if err := os.WriteFile(dots, []byte(`{"theme": "dark"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(env.Home, ".claude.json")
	if err := os.Symlink(dots, link); err != nil {
		t.Fatal(err)
	}
	e, _ = c.ServerEdit(ScopeUser, Server{Name: "retrieve", Command: "retrieve", Root: root}, env)
	res, err := Apply(e, Options{})
	if err != nil || res.Path != dots {
		t.Fatalf("%+v, %v", res, err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	if b, _ := os.ReadFile(dots); !strings.Contains(string(b), `"retrieve"`) || !strings.Contains(string(b), `"theme"`) {
		t.Errorf("target:\n%s", b)
	}
}

// Appends add items to arrays without touching the rest of the file, once.
func TestAppends(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	item := map[string]any{"matcher": "Read", "hooks": []any{map[string]any{"type": "command", "command": "x"}}}
	e := Edit{Path: p, Format: JSON, Key: []string{"hooks"}, Appends: map[string][]any{"PostToolUse": {item}, "Stop": {item}}}
	if err := os.WriteFile(p, []byte(`{"hooks": {"Stop": [1]}, "keep": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := Apply(e, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(p)
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	hooks := doc["hooks"].(map[string]any)
	if doc["keep"] != true || len(hooks["Stop"].([]any)) != 2 || len(hooks["PostToolUse"].([]any)) != 1 {
		t.Fatalf("after two appends:\n%s", b)
	}
	// A key that is not an array is refused, the file untouched.
	if err := os.WriteFile(p, []byte(`{"hooks": {"Stop": "no"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(e, Options{}); err == nil || !strings.Contains(err.Error(), "not an array") {
		t.Fatalf("err = %v", err)
	}
	// JSONC keeps its comments.
	e.Format = JSONC
	if err := os.WriteFile(p, []byte("{\n  // mine\n  \"a\": 1,\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(e, Options{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); !strings.Contains(string(b), "// mine") || !strings.Contains(string(b), `"PostToolUse"`) {
		t.Fatalf("jsonc:\n%s", b)
	}
}
