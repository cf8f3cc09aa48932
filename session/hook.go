// Package session records what an agent read during a session — through
// its host's own tools (Claude Code's Read, Grep, Glob, WebFetch) or
// through retrieve — and re-checks it later. A hook appends records to the
// session's journal (.retrieve/sessions/<id>.jsonl) in a few milliseconds;
// the journal's sources become ledger entries (op "observe") when the
// session is next shown, verified or stopped. See docs/sessions.md.
package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/retrieve-dev/retrieve"
)

// Event names of a normalized hook event.
const (
	EventRead    = "read"    // a file span was read
	EventList    = "list"    // file names were listed (Glob, Grep without content)
	EventFetch   = "fetch"   // a URL was fetched
	EventFailure = "failure" // a tool failed
	EventStop    = "stop"    // the agent ends its turn: check its answer
	EventStart   = "start"   // a session starts: its id goes to the agent's shell
	EventIgnored = "ignored" // an event or tool this hook does not record
)

// Event is one hook call, normalized from the host's format.
type Event struct {
	Host      string `json:"host"`
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Name      string `json:"event"`
	Tool      string `json:"tool"`
	ToolUseID string `json:"tool_use_id,omitempty"`
	// Reads: the file (absolute or relative to Cwd), the first line and the
	// last (0: to the end), and what the tool returned (nil when the host
	// did not say). Numbered is true when each line carries the host's
	// line-number prefix (Claude Code's cat -n format).
	Reads []Read `json:"reads,omitempty"`
	// List: the file names the agent saw.
	Paths []string `json:"paths,omitempty"`
	// Fetch: the URL, the status, what the agent was given, and whether
	// that is a model's summary rather than the page.
	URL     string  `json:"url,omitempty"`
	Status  int     `json:"status,omitempty"`
	Content *string `json:"content,omitempty"`
	Summary bool    `json:"summary,omitempty"`
	// Failure: the tool's error.
	Error string `json:"error,omitempty"`
	// Stop: the final answer, or where to find it.
	Text           string `json:"text,omitempty"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	StopHookActive bool   `json:"stop_hook_active,omitempty"`
	// Why is set on ignored events.
	Why string `json:"why,omitempty"`
}

// Read is one file span a tool returned.
type Read struct {
	Path     string  `json:"path"`
	Start    int     `json:"start_line"`
	End      int     `json:"end_line"`
	Content  *string `json:"content,omitempty"`
	Numbered bool    `json:"-"`
}

// MaxHookInput caps the hook JSON read from stdin. A Read of a large file
// carries the file in tool_response: past the cap the event is not
// decoded and the hook logs it.
const MaxHookInput = 64 << 20

// claudeCodeInput is Claude Code's hook input (hooks reference: common
// fields, PostToolUse, PostToolUseFailure, Stop). Unknown fields are
// ignored: the host adds fields over time.
type claudeCodeInput struct {
	SessionID            string          `json:"session_id"`
	TranscriptPath       string          `json:"transcript_path"`
	Cwd                  string          `json:"cwd"`
	HookEventName        string          `json:"hook_event_name"`
	ToolName             string          `json:"tool_name"`
	ToolInput            json.RawMessage `json:"tool_input"`
	ToolResponse         json.RawMessage `json:"tool_response"`
	ToolUseID            string          `json:"tool_use_id"`
	Error                string          `json:"error"`
	StopHookActive       bool            `json:"stop_hook_active"`
	LastAssistantMessage string          `json:"last_assistant_message"`
}

// ParseClaudeCode decodes Claude Code's hook JSON into an Event. Events and
// tools it does not record come back as EventIgnored with the reason.
func ParseClaudeCode(b []byte) (*Event, error) {
	var in claudeCodeInput
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, retrieve.Errorf(retrieve.CodeParseFailed, "the hook input is not Claude Code's hook JSON: %v", err).
			WithHint("Claude Code passes one JSON object on stdin; see docs/sessions.md")
	}
	if in.SessionID == "" {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "the hook input has no session_id").
			WithHint("Claude Code passes session_id on every hook event")
	}
	ev := &Event{Host: "claude-code", SessionID: in.SessionID, Cwd: in.Cwd, Tool: in.ToolName, ToolUseID: in.ToolUseID, TranscriptPath: in.TranscriptPath}
	switch in.HookEventName {
	case "Stop", "SubagentStop":
		ev.Name, ev.Text, ev.StopHookActive = EventStop, in.LastAssistantMessage, in.StopHookActive
		return ev, nil
	case "SessionStart":
		ev.Name = EventStart
		return ev, nil
	case "PostToolUseFailure":
		ev.Name, ev.Error = EventFailure, in.Error
		if ev.Error == "" {
			ev.Error = string(in.ToolResponse)
		}
		return ev, nil
	case "PostToolUse":
	default:
		ev.Name, ev.Why = EventIgnored, fmt.Sprintf("event %q is not recorded", in.HookEventName)
		return ev, nil
	}
	var err error
	switch in.ToolName {
	case "Read":
		err = ev.claudeRead(in.ToolInput, in.ToolResponse)
	case "Grep":
		err = ev.claudeGrep(in.ToolInput, in.ToolResponse)
	case "Glob":
		err = ev.claudeGlob(in.ToolResponse)
	case "WebFetch":
		err = ev.claudeWebFetch(in.ToolInput, in.ToolResponse)
	default:
		ev.Name, ev.Why = EventIgnored, fmt.Sprintf("tool %q is not recorded", in.ToolName)
	}
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeParseFailed, "%s input of %s: %v", in.HookEventName, in.ToolName, err).
			WithHint("the tool's input or response is not in the documented shape")
	}
	return ev, nil
}

// responseError returns the error a tool_response reports, if any (a
// string response, or {"error": …}/{"is_error": true}).
func responseError(resp json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(resp, &m) != nil {
		return ""
	}
	if e, ok := m["error"].(string); ok && e != "" {
		return e
	}
	if b, ok := m["is_error"].(bool); ok && b {
		return fmt.Sprint(m["content"])
	}
	return ""
}

func (ev *Event) claudeRead(input, resp json.RawMessage) error {
	var in struct {
		FilePath string `json:"file_path"`
		Offset   *int   `json:"offset"`
		Limit    *int   `json:"limit"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return err
	}
	if in.FilePath == "" {
		return fmt.Errorf("tool_input has no file_path")
	}
	if e := responseError(resp); e != "" {
		ev.Name, ev.Error = EventFailure, e
		return nil
	}
	rd := Read{Path: in.FilePath, Start: 1}
	if in.Offset != nil && *in.Offset > 0 {
		rd.Start = *in.Offset
	}
	if in.Limit != nil && *in.Limit > 0 {
		rd.End = rd.Start + *in.Limit - 1
	}
	// tool_response: {"type": "text", "file": {"filePath", "content",
	// "numLines", "startLine", "totalLines"}}; older hosts send a string.
	var out struct {
		Type string `json:"type"`
		File *struct {
			FilePath  string  `json:"filePath"`
			Content   *string `json:"content"`
			NumLines  *int    `json:"numLines"`
			StartLine *int    `json:"startLine"`
		} `json:"file"`
	}
	var s string
	switch {
	case len(bytes.TrimSpace(resp)) == 0 || string(bytes.TrimSpace(resp)) == "null":
	case json.Unmarshal(resp, &s) == nil:
		rd.Content, rd.Numbered = &s, true
	case json.Unmarshal(resp, &out) == nil && out.File != nil:
		if out.Type != "" && out.Type != "text" {
			// An image, a PDF or a notebook: the agent saw the whole file.
			rd.Start, rd.End = 0, 0
			break
		}
		rd.Content, rd.Numbered = out.File.Content, true
		if out.File.StartLine != nil && *out.File.StartLine > 0 {
			rd.Start = *out.File.StartLine
		}
		if out.File.NumLines != nil {
			rd.End = rd.Start + *out.File.NumLines - 1
			if *out.File.NumLines == 0 {
				rd.End = -1 // nothing was returned
			}
		}
	}
	ev.Name, ev.Reads = EventRead, []Read{rd}
	return nil
}

func (ev *Event) claudeGrep(input, resp json.RawMessage) error {
	if e := responseError(resp); e != "" {
		ev.Name, ev.Error = EventFailure, e
		return nil
	}
	// tool_response: {"mode": "files_with_matches"|"content"|"count",
	// "filenames": [...], "numFiles", "content", "numLines"}.
	var out struct {
		Mode      string   `json:"mode"`
		Filenames []string `json:"filenames"`
		Content   string   `json:"content"`
	}
	if err := json.Unmarshal(resp, &out); err != nil {
		return err
	}
	if out.Mode == "content" && out.Content != "" {
		// Lines "path:N:text" (with -n); one read per matched line.
		var reads []Read
		for _, line := range strings.Split(out.Content, "\n") {
			path, rest, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			num, text, ok := strings.Cut(rest, ":")
			n, err := strconv.Atoi(num)
			if !ok || err != nil || n <= 0 {
				continue
			}
			t := text
			reads = append(reads, Read{Path: path, Start: n, End: n, Content: &t})
		}
		if len(reads) > 0 {
			ev.Name, ev.Reads = EventRead, reads
			return nil
		}
	}
	ev.Name, ev.Paths = EventList, out.Filenames
	return nil
}

func (ev *Event) claudeGlob(resp json.RawMessage) error {
	if e := responseError(resp); e != "" {
		ev.Name, ev.Error = EventFailure, e
		return nil
	}
	// tool_response: {"filenames": [...], "durationMs", "numFiles", "truncated"}.
	var out struct {
		Filenames []string `json:"filenames"`
	}
	if err := json.Unmarshal(resp, &out); err != nil {
		return err
	}
	ev.Name, ev.Paths = EventList, out.Filenames
	return nil
}

func (ev *Event) claudeWebFetch(input, resp json.RawMessage) error {
	var in struct {
		URL    string `json:"url"`
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return err
	}
	if e := responseError(resp); e != "" {
		ev.Name, ev.Error = EventFailure, e
		return nil
	}
	// tool_response: {"bytes", "code", "codeText", "result", "durationMs", "url"}.
	var out struct {
		Code   int    `json:"code"`
		Result string `json:"result"`
		URL    string `json:"url"`
	}
	if err := json.Unmarshal(resp, &out); err != nil {
		var s string
		if json.Unmarshal(resp, &s) != nil {
			return err
		}
		out.Result = s
	}
	ev.Name, ev.URL, ev.Status, ev.Summary = EventFetch, in.URL, out.Code, true
	if out.URL != "" {
		ev.URL = out.URL
	}
	if ev.URL == "" {
		return fmt.Errorf("tool_input has no url")
	}
	ev.Content = &out.Result
	return nil
}

// GenericInput is the small hook schema other agents use
// (`retrieve hook json`, docs/sessions.md).
type GenericInput struct {
	SessionID string `json:"session_id"`
	Host      string `json:"host,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	// Event is read, list, fetch, failure or stop.
	Event string `json:"event"`
	Tool  string `json:"tool,omitempty"`
	// read: the file, its lines (1-based, inclusive; 0 = from the start /
	// to the end) and the text the tool returned, without line numbers.
	Path      string  `json:"path,omitempty"`
	StartLine int     `json:"start_line,omitempty"`
	EndLine   int     `json:"end_line,omitempty"`
	Content   *string `json:"content,omitempty"`
	// list: the file names the agent saw.
	Paths []string `json:"paths,omitempty"`
	// fetch: the URL, the HTTP status, and whether content is a summary
	// made by a model rather than the page.
	URL     string `json:"url,omitempty"`
	Status  int    `json:"status,omitempty"`
	Summary bool   `json:"summary,omitempty"`
	// failure: the tool's error.
	Error string `json:"error,omitempty"`
	// stop: the final answer (Markdown) to check, or a Claude Code
	// transcript to read it from.
	Text           string `json:"text,omitempty"`
	TranscriptPath string `json:"transcript_path,omitempty"`
}

// ParseGeneric decodes the generic hook schema strictly.
func ParseGeneric(b []byte) (*Event, error) {
	var in GenericInput
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, retrieve.Errorf(retrieve.CodeParseFailed, "the hook input does not match the generic schema: %v", err).
			WithHint("see docs/sessions.md for the fields of `retrieve hook json`")
	}
	if in.SessionID == "" {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "session_id is required").WithHint("pass a stable id for the agent's session")
	}
	host := in.Host
	if host == "" {
		host = "generic"
	}
	ev := &Event{Host: host, SessionID: in.SessionID, Cwd: in.Cwd, Name: in.Event, Tool: in.Tool, TranscriptPath: in.TranscriptPath}
	switch in.Event {
	case EventRead:
		if in.Path == "" {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "a read event needs path").WithHint(`{"event": "read", "path": "notes.txt", "start_line": 1, "end_line": 20}`)
		}
		start := max(in.StartLine, 1)
		ev.Reads = []Read{{Path: in.Path, Start: start, End: in.EndLine, Content: in.Content}}
	case EventList:
		ev.Paths = in.Paths
	case EventFetch:
		if in.URL == "" {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "a fetch event needs url").WithHint(`{"event": "fetch", "url": "https://…", "content": "…"}`)
		}
		ev.URL, ev.Status, ev.Content, ev.Summary = in.URL, in.Status, in.Content, in.Summary
	case EventFailure:
		ev.Error = in.Error
	case EventStop:
		ev.Text = in.Text
	default:
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "unknown event %q", in.Event).
			WithHint("use read, list, fetch, failure or stop")
	}
	return ev, nil
}
