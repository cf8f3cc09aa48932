package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/testws"
)

// runTTY runs the CLI in-process as if its standard output were a
// terminal, with env as the environment variables the command reads.
func runTTY(t *testing.T, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	for k, v := range map[string]string{"NO_COLOR": "", "TERM": "xterm-256color"} {
		if _, set := env[k]; !set {
			t.Setenv(k, v)
		}
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	var out, errOut bytes.Buffer
	code := run(context.Background(), &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, OutTTY: true, ErrTTY: true}, args)
	return out.String(), errOut.String(), code
}

const esc = "\x1b["

// TestTerminalGet: on a terminal, get prints the data under a one-line
// citation header, in colour unless NO_COLOR or --color never; --yaml and
// --json (and a pipe) print the whole envelope.
func TestTerminalGet(t *testing.T) {
	ws := testws.New(t)
	ws.Write("notes.txt", "alpha\nbeta\ngamma\n")
	t.Run("OK", func(t *testing.T) {
		out, _, code := runTTY(t, nil, "--root", ws.Root, "get", "notes.txt", "--lines", "2")
		if code != ExitOK {
			t.Fatalf("exit %d", code)
		}
		plain := stripANSI(out)
		lines := strings.Split(plain, "\n")
		if !strings.HasPrefix(lines[0], "# notes.txt:2-2 · sha256:") || !strings.Contains(lines[0], "confidence 1.00") || lines[1] != "beta" {
			t.Errorf("terminal output:\n%s", plain)
		}
		if strings.Contains(plain, "retrieved:") || !strings.Contains(out, esc) {
			t.Errorf("want the data with a coloured header, not the envelope:\n%q", out)
		}
	})
	t.Run("NoColor", func(t *testing.T) {
		for _, c := range []struct {
			env  map[string]string
			args []string
		}{{map[string]string{"NO_COLOR": "1"}, nil}, {nil, []string{"--color", "never"}}, {map[string]string{"TERM": "dumb"}, nil}} {
			out, _, _ := runTTY(t, c.env, append([]string{"--root", ws.Root, "get", "notes.txt"}, c.args...)...)
			if strings.Contains(out, esc) || !strings.Contains(out, "alpha") {
				t.Errorf("env %v args %v printed colour:\n%q", c.env, c.args, out)
			}
		}
		out, _, _ := runCLI(t, "--root", ws.Root, "--color", "always", "get", "notes.txt", "--lines", "1")
		if !strings.Contains(out, "retrieved:") || strings.Contains(out, esc) {
			t.Errorf("piped output must be the envelope, without colour codes in YAML:\n%q", out)
		}
	})
	t.Run("Envelope", func(t *testing.T) {
		out, _, _ := runTTY(t, nil, "--root", ws.Root, "get", "notes.txt", "--yaml")
		if !strings.Contains(out, "retrieved:") || !strings.Contains(out, "citation:") {
			t.Errorf("--yaml on a terminal: want the envelope:\n%s", out)
		}
		out, _, _ = runTTY(t, nil, "--root", ws.Root, "get", "notes.txt", "--json")
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil || m["citation"] == nil {
			t.Errorf("--json on a terminal: %v\n%s", err, out)
		}
	})
	t.Run("ErrBadColor", func(t *testing.T) {
		_, errOut, code := runTTY(t, nil, "--root", ws.Root, "--color", "sometimes", "get", "notes.txt")
		if code != ExitUsage || !strings.Contains(errOut, "auto, always or never") {
			t.Errorf("--color sometimes: %d %s", code, errOut)
		}
	})
}

// TestTerminalVerifyDiff: verify of a changed citation prints, on a
// terminal, the status and a coloured unified diff (not an escaped YAML
// string).
func TestTerminalVerifyDiff(t *testing.T) {
	ws := testws.New(t)
	ws.Write("notes.txt", "alpha\nbeta\ngamma\n")
	out, errOut, code := runCLI(t, "--root", ws.Root, "get", "notes.txt", "--json")
	if code != ExitOK {
		t.Fatalf("get: %s", errOut)
	}
	var res struct {
		ID string `json:"retrieval_id"`
	}
	_ = json.Unmarshal([]byte(out), &res)
	ws.Write("notes.txt", "alpha\nBETA\ngamma\n")
	out, _, code = runTTY(t, nil, "--root", ws.Root, "verify", res.ID)
	if code != ExitChanged {
		t.Fatalf("verify exit %d:\n%s", code, out)
	}
	plain := stripANSI(out)
	if !strings.HasPrefix(plain, "changed notes.txt") || !strings.Contains(plain, "\n-beta\n") || !strings.Contains(plain, "\n+BETA\n") {
		t.Errorf("verify on a terminal:\n%s", plain)
	}
	if !strings.Contains(out, esc+"31m-beta") || !strings.Contains(out, esc+"32m+BETA") {
		t.Errorf("the diff is not coloured:\n%q", out)
	}
}

// TestTerminalHelpfulErrors: a wrong path names the closest files, a
// missing argument prints the usage line, and init prepares memory and
// speaks JSON with --json.
func TestTerminalHelpfulErrors(t *testing.T) {
	ws := testws.New(t)
	ws.Write("README.md", "# hi\n")
	_, errOut, code := runCLI(t, "--root", ws.Root, "get", "READM.md")
	if code != ExitNotFound || !strings.Contains(errOut, "did you mean README.md?") {
		t.Errorf("wrong path: %d %s", code, errOut)
	}
	_, errOut, code = runCLI(t, "--root", ws.Root, "get")
	if code != ExitUsage || !strings.Contains(errOut, "usage: retrieve get TARGET") || !strings.Contains(errOut, "retrieve get --help") {
		t.Errorf("no argument: %d %s", code, errOut)
	}
	out, errOut, code := runCLI(t, "--root", ws.Root, "init", "--json")
	var in struct {
		Config string
		Memory struct {
			Dir     string
			Created []string
		}
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &in) != nil || in.Config == "" || in.Memory.Dir != "memory" || len(in.Memory.Created) == 0 {
		t.Fatalf("init --json: %d %s %s", code, out, errOut)
	}
	if _, errOut, code := runCLI(t, "--root", ws.Root, "memory", "create", "--type", "semantic", "--title", "First", "--content", "works after init"); code != ExitOK {
		t.Errorf("memory create after init: %d %s", code, errOut)
	}
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 'A' || s[j] > 'z') {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
