package main

import (
	"path/filepath"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/mcpconfig"
)

// hookMatcher is the PostToolUse matcher of the tools whose reads the
// session hook records (docs/sessions.md).
const hookMatcher = "Read|Grep|Glob|WebFetch"

// claudeCodeHooksEdit returns the edit that adds retrieve's hooks to
// Claude Code's settings (hooks reference: settings.json "hooks", each
// event a list of {matcher, hooks: [{type: command, command}]}): the
// project's .claude/settings.json, or ~/.claude/settings.json with --scope
// user. The user's other hooks stay; running it twice adds nothing.
func claudeCodeHooksEdit(scope string, s mcpconfig.Server, env mcpconfig.Env) (mcpconfig.Edit, error) {
	command := strings.Join(append(append([]string{s.Command}, s.Prefix...), "hook", "claude-code"), " ")
	handler := []any{map[string]any{"type": "command", "command": command}}
	e := mcpconfig.Edit{
		Format: mcpconfig.JSON,
		Key:    []string{"hooks"},
		Appends: map[string][]any{
			"PostToolUse":        {map[string]any{"matcher": hookMatcher, "hooks": handler}},
			"PostToolUseFailure": {map[string]any{"matcher": hookMatcher, "hooks": handler}},
			"Stop":               {map[string]any{"hooks": handler}},
			// SessionStart gives the agent's shell RETRIEVE_SESSION_ID, so
			// that retrieve verify and check show on the session's page.
			"SessionStart": {map[string]any{"hooks": handler}},
		},
	}
	switch scope {
	case "", mcpconfig.ScopeProject:
		e.Path, e.Within = filepath.Join(s.Root, ".claude", "settings.json"), s.Root
	case mcpconfig.ScopeUser:
		e.Path = filepath.Join(env.Home, ".claude", "settings.json")
	default:
		return e, retrieve.Errorf(retrieve.CodeInputValidation, "unknown scope %q", scope).WithHint("use --scope project or --scope user")
	}
	return e, nil
}
