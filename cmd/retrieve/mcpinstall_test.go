package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMCPInstall(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CODEX_HOME", "")
	root := t.TempDir()

	out, errOut, code := runCLI(t, "--root", root, "mcp", "install", "--client", "claude-code", "--print")
	if code != ExitOK || !strings.Contains(errOut, filepath.Join(root, ".mcp.json")) {
		t.Fatalf("print: %d %s %s", code, out, errOut)
	}
	var doc map[string]map[string]map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("printed entry is not JSON: %v\n%s", err, out)
	}
	if e := doc["mcpServers"]["retrieve"]; e["command"] != "retrieve" || e["type"] != "stdio" {
		t.Errorf("printed entry %v", e)
	}
	if _, err := os.Stat(filepath.Join(root, ".mcp.json")); !os.IsNotExist(err) {
		t.Fatal("--print wrote the file")
	}

	out, errOut, code = runCLI(t, "--root", root, "mcp", "install", "--client", "claude-code")
	if code != ExitOK || !strings.Contains(out, `added "retrieve" in `+filepath.Join(root, ".mcp.json")) {
		t.Fatalf("install: %d %s %s", code, out, errOut)
	}
	before, _ := os.ReadFile(filepath.Join(root, ".mcp.json"))
	out, errOut, code = runCLI(t, "--root", root, "mcp", "install", "--client", "claude-code")
	if code != ExitOK || !strings.Contains(out, "already in") {
		t.Fatalf("second install of the same entry: %d %s %s, want exit 0 and nothing written", code, out, errOut)
	}
	after, _ := os.ReadFile(filepath.Join(root, ".mcp.json"))
	if baks, _ := filepath.Glob(filepath.Join(root, ".mcp.json.*.bak")); !bytes.Equal(before, after) || len(baks) != 0 {
		t.Fatalf("a second install changed the file or left backups %v", baks)
	}
	// A different entry under the same name is refused without --force.
	_, errOut, code = runCLI(t, "--root", root, "mcp", "install", "--client", "claude-code", "--toolsets", "all")
	if code == ExitOK || !strings.Contains(errOut, "INVALID_OPERATION") || !strings.Contains(errOut, "--force") {
		t.Fatalf("install of another entry: %d %s", code, errOut)
	}
	out, _, code = runCLI(t, "--root", root, "mcp", "install", "--client", "claude-code", "--force", "--npx", "--json")
	var res map[string]any
	if code != ExitOK || json.Unmarshal([]byte(out), &res) != nil || res["replaced"] != true || res["backup"] == "" {
		t.Fatalf("force: %d %s", code, out)
	}
	// A second forced replacement keeps one backup, the last.
	time.Sleep(1100 * time.Millisecond) // backups are stamped to the second
	if _, errOut, code := runCLI(t, "--root", root, "mcp", "install", "--client", "claude-code", "--force", "--npx", "--toolsets", "read"); code != ExitOK {
		t.Fatalf("second force: %s", errOut)
	}
	if baks, _ := filepath.Glob(filepath.Join(root, ".mcp.json.*.bak")); len(baks) != 1 {
		t.Errorf("backups after two replacements: %v, want the last one only", baks)
	}
	b, _ := os.ReadFile(filepath.Join(root, ".mcp.json"))
	if !strings.Contains(string(b), `"npx"`) || !strings.Contains(string(b), `"@retrieve-dev/retrieve"`) {
		t.Errorf("npx entry:\n%s", b)
	}

	// User scope goes to the home folder, with the absolute root.
	if _, errOut, code := runCLI(t, "--root", root, "mcp", "install", "--client", "cursor", "--scope", "user"); code != ExitOK {
		t.Fatalf("cursor user: %s", errOut)
	}
	b, _ = os.ReadFile(filepath.Join(home, ".cursor", "mcp.json"))
	if !strings.Contains(string(b), root) {
		t.Errorf("cursor user file:\n%s", b)
	}

	_, errOut, code = runCLI(t, "mcp", "install", "--client", "emacs")
	if code != ExitUsage || !strings.Contains(errOut, "claude-code, claude-desktop, cline, codex, cursor, gemini, vscode, windsurf, zed") {
		t.Errorf("unknown client: %d %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "mcp", "install"); code == ExitOK || !strings.Contains(errOut, "client") {
		t.Errorf("no --client: %d %s", code, errOut)
	}
}

// --hooks adds retrieve's session hooks to Claude Code's settings, keeps
// the user's own hooks and settings, and adds nothing the second time.
func TestMCPInstallHooks(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	root := t.TempDir()
	settings := filepath.Join(root, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"added retrieve's session hooks in " + settings, "retrieve's session hooks are already in " + settings + ": nothing written"} {
		out, errOut, code := runCLI(t, "--root", root, "mcp", "install", "--client", "claude-code", "--hooks", "--force")
		if code != ExitOK || !strings.Contains(out, want) {
			t.Fatalf("install --hooks (%d): %d %s %s, want %q", i+1, code, out, errOut, want)
		}
	}
	b, _ := os.ReadFile(settings)
	var doc struct {
		Model string `json:"model"`
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct{ Type, Command string }
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Model != "opus" || len(doc.Hooks["Stop"]) != 2 || doc.Hooks["Stop"][0].Hooks[0].Command != "notify-send done" {
		t.Fatalf("the user's settings were not kept:\n%s", b)
	}
	for _, ev := range []string{"PostToolUse", "PostToolUseFailure", "Stop", "SessionStart"} {
		got := doc.Hooks[ev]
		last := got[len(got)-1]
		if last.Hooks[0].Command != "retrieve hook claude-code" || (ev != "Stop" && ev != "SessionStart" && last.Matcher != "Read|Grep|Glob|WebFetch") {
			t.Errorf("%s: %+v", ev, got)
		}
		if ev != "Stop" && len(got) != 1 {
			t.Errorf("%s: installed twice: %+v", ev, got)
		}
	}
	if _, errOut, code := runCLI(t, "--root", root, "mcp", "install", "--client", "cursor", "--hooks"); code != ExitUsage || !strings.Contains(errOut, "--hooks is for Claude Code") {
		t.Errorf("cursor --hooks: %d %s", code, errOut)
	}
}

// --toolsets, --tools and --read-only go into the entry's serve arguments;
// an unknown toolset is refused before anything is written.
func TestMCPInstallToolsets(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	root := t.TempDir()
	out, errOut, code := runCLI(t, "--root", root, "mcp", "install", "--client", "claude-code", "--print", "--toolsets", "read,graph", "--read-only")
	if code != ExitOK {
		t.Fatalf("print: %d %s", code, errOut)
	}
	var doc map[string]map[string]map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("printed entry is not JSON: %v\n%s", err, out)
	}
	args, _ := json.Marshal(doc["mcpServers"]["retrieve"]["args"])
	if want := `"serve","--stdio","--toolsets","read,graph","--read-only"]`; !strings.HasSuffix(string(args), want) {
		t.Errorf("args %s, want them to end with %s", args, want)
	}
	_, errOut, code = runCLI(t, "--root", root, "mcp", "install", "--client", "claude-code", "--toolsets", "nope")
	if code != ExitUsage || !strings.Contains(errOut, "no toolset") || !strings.Contains(errOut, "session") {
		t.Errorf("--toolsets nope: %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(root, ".mcp.json")); !os.IsNotExist(err) {
		t.Error("a refused install wrote .mcp.json")
	}
}
