package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/mcpconfig"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// pluginDir is the Claude Code plugin (docs/sessions.md).
const pluginDir = "../../integrations/claude-code"

// The plugin bundles what `retrieve mcp install --client claude-code
// --hooks` writes: the same hooks, the MCP server, and the skill, kept
// equal to SKILL.md.
func TestClaudeCodePlugin(t *testing.T) {
	read := func(p string, v any) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(pluginDir, p))
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		if err := dec.Decode(v); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	var manifest struct {
		Name, Version, Description string
	}
	read(".claude-plugin/plugin.json", &manifest)
	if !regexp.MustCompile(`^[a-z0-9-]+$`).MatchString(manifest.Name) || manifest.Version == "" || manifest.Description == "" {
		t.Errorf("manifest %+v: name must be kebab-case, version and description set", manifest)
	}

	var hooks struct {
		Hooks map[string][]map[string]any `json:"hooks"`
	}
	read("hooks/hooks.json", &hooks)
	edit, err := claudeCodeHooksEdit("", mcpconfig.Server{Command: "retrieve", Root: t.TempDir()}, mcpconfig.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hooks.Hooks) != len(edit.Appends) {
		t.Fatalf("plugin hooks %v, install writes %v", hooks.Hooks, edit.Appends)
	}
	for event, want := range edit.Appends {
		got := hooks.Hooks[event]
		if len(got) != 1 {
			t.Fatalf("%s: %v", event, got)
		}
		w := want[0].(map[string]any)
		if got[0]["matcher"] != w["matcher"] && !(got[0]["matcher"] == nil && w["matcher"] == nil) {
			t.Errorf("%s matcher %v, install writes %v", event, got[0]["matcher"], w["matcher"])
		}
		handler := got[0]["hooks"].([]any)[0].(map[string]any)
		if handler["type"] != "command" || handler["command"] != "retrieve hook claude-code" {
			t.Errorf("%s handler %v", event, handler)
		}
	}

	var mcp struct {
		MCPServers map[string]struct {
			Type, Command string
			Args          []string
		} `json:"mcpServers"`
	}
	read(".mcp.json", &mcp)
	s := mcp.MCPServers["retrieve"]
	if s.Command != "retrieve" || !reflect.DeepEqual(s.Args, []string{"--root", ".", "serve", "--stdio"}) {
		t.Errorf("mcp server %+v", s)
	}

	skill, _ := os.ReadFile(filepath.Join(pluginDir, "skills/retrieve/SKILL.md"))
	root, _ := os.ReadFile("../../SKILL.md")
	if len(root) == 0 || !bytes.Equal(skill, root) {
		t.Error("the plugin's skills/retrieve/SKILL.md differs from SKILL.md: cp SKILL.md integrations/claude-code/skills/retrieve/SKILL.md")
	}
}

// TestSkillPreApprovesReadOnlyTools: SKILL.md's allowed-tools pre-approves
// every read-only MCP tool of a full server and nothing that writes (a host
// runs pre-approved tools without asking).
func TestSkillPreApprovesReadOnlyTools(t *testing.T) {
	b, err := os.ReadFile("../../SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^allowed-tools: (.*)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("SKILL.md has no allowed-tools line")
	}
	allowed := map[string]bool{}
	for _, a := range strings.Split(string(m[1]), ",") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(a), "mcp__retrieve__"); ok {
			allowed[name] = true
		}
	}
	env := opstest.NewFull(t)
	for _, op := range env.Table.Ops() {
		switch {
		case op.ReadOnly && !allowed[op.Name]:
			t.Errorf("SKILL.md does not pre-approve the read-only tool %s", op.Name)
		case !op.ReadOnly && allowed[op.Name]:
			t.Errorf("SKILL.md pre-approves %s, which changes things", op.Name)
		}
		delete(allowed, op.Name)
	}
	for name := range allowed {
		t.Errorf("SKILL.md pre-approves %s, which is no tool", name)
	}
}
