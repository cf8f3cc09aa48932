package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Inputs in the shapes of Claude Code's hooks reference (docs/sessions.md).
var claudeInputs = map[string]string{
	"read": `{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/w","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Read",
		"tool_input":{"file_path":"/w/a.go","offset":10,"limit":5},
		"tool_response":{"type":"text","file":{"filePath":"/w/a.go","content":"    10→x\n    11→y","numLines":2,"startLine":10,"totalLines":11}},"tool_use_id":"toolu_1"}`,
	"read-image": `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/w/p.png"},"tool_response":{"type":"image","file":{"base64":"AA==","type":"image/png"}}}`,
	"grep-files": `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Grep","tool_input":{"pattern":"x"},"tool_response":{"mode":"files_with_matches","filenames":["a.go","b.go"],"numFiles":2}}`,
	"grep-lines": `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Grep","tool_input":{"pattern":"x","output_mode":"content","-n":true},"tool_response":{"mode":"content","content":"a.go:3:x := 1\nb.go:7:// x: y","numLines":2}}`,
	"glob":       `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Glob","tool_input":{"pattern":"*.go"},"tool_response":{"filenames":["/w/a.go"],"durationMs":1,"numFiles":1,"truncated":false}}`,
	"webfetch":   `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"WebFetch","tool_input":{"url":"http://127.0.0.1:1/x","prompt":"p"},"tool_response":{"bytes":10,"code":200,"codeText":"OK","result":"summary","durationMs":3,"url":"http://127.0.0.1:1/x"}}`,
	"failure":    `{"session_id":"s","hook_event_name":"PostToolUseFailure","tool_name":"Read","tool_input":{"file_path":"/w/none"},"error":"File does not exist."}`,
	"stop":       `{"session_id":"s","transcript_path":"/t.jsonl","hook_event_name":"Stop","stop_hook_active":true}`,
	"bash":       `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":""}}`,
	"pre":        `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/w/a"}}`,
}

func TestParseClaudeCode(t *testing.T) {
	got := map[string]string{}
	for name, in := range claudeInputs {
		ev, err := ParseClaudeCode([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := ev.Name + " " + ev.Tool
		for _, r := range ev.Reads {
			c := "<nil>"
			if r.Content != nil {
				c = *r.Content
			}
			s += " " + r.Path + ":" + itoa(r.Start) + "-" + itoa(r.End) + "=" + c
		}
		s += "|" + strings.Join(ev.Paths, ",") + "|" + ev.URL + "|" + ev.Error + "|" + ev.Why
		if ev.StopHookActive {
			s += "|active"
		}
		got[name] = s
	}
	want := map[string]string{
		"read":       "read Read /w/a.go:10-11=    10→x\n    11→y||||",
		"read-image": "read Read /w/p.png:0-0=<nil>||||",
		"grep-files": "list Grep|a.go,b.go|||",
		"grep-lines": "read Grep a.go:3-3=x := 1 b.go:7-7=// x: y||||",
		"glob":       "list Glob|/w/a.go|||",
		"webfetch":   "fetch WebFetch||http://127.0.0.1:1/x||",
		"failure":    "failure Read|||File does not exist.|",
		"stop":       "stop |||||active",
		"bash":       `ignored Bash||||tool "Bash" is not recorded`,
		"pre":        `ignored Read||||event "PreToolUse" is not recorded`,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s:\n got %q\nwant %q", k, got[k], w)
		}
	}
	for _, bad := range []string{``, `{`, `[]`, `{"hook_event_name":"Stop"}`, `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{}}`} {
		if _, err := ParseClaudeCode([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func TestCompareLines(t *testing.T) {
	long := strings.Repeat("x", 2100)
	cases := []struct {
		disk, tool string
		numbered   bool
		want       string
	}{
		{"a\nb\n", "     1→a\n     2→b", true, SeenMatch},
		{"a\nb\n", "     1\ta\n     2\tb\n", true, SeenMatch},
		{"a\nb\n", "a\nb", false, SeenMatch},
		{"a\r\nb\r\n", "     1→a\n     2→b", true, SeenMatch},
		{"a\nb\n", "     1→a\n     2→c", true, SeenMismatch},
		{"a\nb\n", "     1→a", true, SeenMismatch},
		{long + "\n", "     1→" + long[:2000], true, SeenMatch},
		{"short\n", "     1→sho", true, SeenMismatch},
		// Not every line numbered: compared as is.
		{"a\nb\n", "a\n     2→b", true, SeenMismatch},
		{"x\n", "x", true, SeenMatch},
	}
	for _, c := range cases {
		if got, _ := compareLines(c.disk, c.tool, c.numbered); got != c.want {
			t.Errorf("compareLines(%q, %q) = %s, want %s", c.disk, c.tool, got, c.want)
		}
	}
}

func TestLastAssistantText(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "t.jsonl")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	full := `{"type":"user","message":{"role":"user","content":"q"}}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"reading"},{"type":"tool_use","id":"t","name":"Read","input":{}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"part one"}]}}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"part two"}]}}
`
	got, err := LastAssistantText(write(full))
	if err != nil || got != "part one\n\npart two" {
		t.Fatalf("got %q, %v", got, err)
	}
	// Half-written: the cut line is skipped.
	got, err = LastAssistantText(write(full + `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"par`))
	if err != nil || got != "part one\n\npart two" {
		t.Fatalf("half-written: got %q, %v", got, err)
	}
	// The turn has not been written yet: an error, not an empty answer.
	if _, err := LastAssistantText(write(`{"type":"user","message":{"role":"user","content":"q"}}` + "\n")); err == nil {
		t.Fatal("no assistant message: no error")
	}
	if _, err := LastAssistantText(filepath.Join(dir, "missing.jsonl")); err == nil {
		t.Fatal("missing transcript: no error")
	}
}

func TestJournalTornLine(t *testing.T) {
	j := &Journal{Dir: t.TempDir()}
	if err := j.Append("s/../x", Record{Type: TypeSource, ID: "1", Session: "s/../x"}); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(j.Dir)
	if len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), "x-") {
		t.Fatalf("an unsafe id names the file %v", ents)
	}
	f, _ := os.OpenFile(filepath.Join(j.Dir, ents[0].Name()), os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(`{"type":"source","id":"2"`)
	f.Close()
	recs, skipped, err := j.Read("s/../x")
	if err != nil || len(recs) != 1 || skipped != 1 {
		t.Fatalf("recs=%d skipped=%d err=%v", len(recs), skipped, err)
	}
	if _, _, err := j.Read("nope"); err == nil {
		t.Fatal("a missing session read")
	}
}

func FuzzParseClaudeCode(f *testing.F) {
	for _, in := range claudeInputs {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := ParseClaudeCode(b)
		if err != nil {
			return
		}
		if ev.SessionID == "" || ev.Name == "" {
			t.Fatalf("parsed without session or event: %+v", ev)
		}
		for _, r := range ev.Reads {
			if r.Path == "" {
				t.Fatalf("a read without a path: %+v", ev)
			}
		}
	})
}

func FuzzParseGeneric(f *testing.F) {
	f.Add([]byte(`{"session_id":"g","event":"read","path":"a.txt","start_line":2,"end_line":3,"content":"x\n"}`))
	f.Add([]byte(`{"session_id":"g","event":"fetch","url":"http://127.0.0.1/","summary":true,"content":"s"}`))
	f.Add([]byte(`{"session_id":"g","event":"stop","text":"\"a\" [a.txt:1](a.txt:1)"}`))
	f.Add([]byte(`{"session_id":"g","event":"list","paths":["a","b"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := ParseGeneric(b)
		if err != nil {
			return
		}
		switch ev.Name {
		case EventRead:
			if len(ev.Reads) != 1 || ev.Reads[0].Path == "" || ev.Reads[0].Start < 1 {
				t.Fatalf("bad read %+v", ev)
			}
		case EventFetch:
			if ev.URL == "" {
				t.Fatalf("fetch without url")
			}
		case EventList, EventFailure, EventStop:
		default:
			t.Fatalf("event %q accepted", ev.Name)
		}
	})
}

func FuzzLastAssistantText(f *testing.F) {
	f.Add([]byte(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"}]}}` + "\n"))
	f.Add([]byte(`{"type":"user","message":{"content":"q"}}` + "\n" + `{"type":"assistant","message":{"content":"plain"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := lastAssistantText(strings.NewReader(string(b)))
		if err == nil && strings.TrimSpace(s) == "" {
			t.Fatal("an empty answer without an error")
		}
	})
}
