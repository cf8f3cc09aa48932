package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"go.yaml.in/yaml/v3"
)

// runCLI runs the CLI in-process with buffers and returns stdout, stderr and
// the exit code.
func runCLI(t testing.TB, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, args)
	return out.String(), errOut.String(), code
}

func TestGet(t *testing.T) {
	ws := testws.New(t)
	ws.Write("README.md", "# Title\n\nline three\nline four\n")
	ws.Write(".env", "TOKEN=do-not-leak\n")
	ws.InitGit()

	t.Run("OK/JSON", func(t *testing.T) {
		out, errOut, code := runCLI(t, "--root", ws.Root, "get", "README.md", "--lines", "1-2", "--json")
		if code != ExitOK {
			t.Fatalf("exit %d, stderr %s", code, errOut)
		}
		contracttest.Check(t, []byte(out))
		var res retrieve.Result
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if res.Retrieved.Data != "# Title\n\n" || res.Citation.Reference != "README.md:1-2" {
			t.Errorf("data=%q reference=%q", res.Retrieved.Data, res.Citation.Reference)
		}
	})
	t.Run("OK/YAML", func(t *testing.T) {
		out, _, code := runCLI(t, "--root", ws.Root, "get", "README.md:3-4")
		if code != ExitOK {
			t.Fatalf("exit %d", code)
		}
		var m map[string]any
		if err := yaml.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("output is not YAML: %v\n%s", err, out)
		}
		if !strings.Contains(out, "reference: README.md:3-4") || !strings.Contains(out, "data: |") {
			t.Errorf("YAML output lacks the reference or the literal block:\n%s", out)
		}
	})
	t.Run("OK/Many", func(t *testing.T) {
		out, _, code := runCLI(t, "--root", ws.Root, "get", "README.md:1-1", "README.md:3-3", "--json")
		if code != ExitOK {
			t.Fatalf("exit %d", code)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 {
			t.Fatalf("got %d JSON lines, want 2:\n%s", len(lines), out)
		}
		for _, l := range lines {
			contracttest.Check(t, []byte(l))
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		out, errOut, code := runCLI(t, "--root", ws.Root, "get", "README.mdx", "--json")
		if code != ExitNotFound {
			t.Fatalf("exit %d, want %d", code, ExitNotFound)
		}
		contracttest.Check(t, []byte(out))
		if !strings.Contains(errOut, "PATH_NOT_FOUND") || !strings.Contains(out, `"README.md"`) {
			t.Errorf("stderr %q / stdout %q: want the code and the alternative", errOut, out)
		}
	})
	t.Run("ErrSensitive", func(t *testing.T) {
		out, errOut, code := runCLI(t, "--root", ws.Root, "get", ".env")
		if code != ExitRefused {
			t.Fatalf("exit %d, want %d", code, ExitRefused)
		}
		if strings.Contains(out+errOut, "do-not-leak") {
			t.Fatal("the content of a denied file was printed")
		}
	})
	t.Run("ErrBadRange", func(t *testing.T) {
		_, _, code := runCLI(t, "--root", ws.Root, "get", "README.md", "--lines", "5-2")
		if code != ExitUsage {
			t.Fatalf("exit %d, want %d", code, ExitUsage)
		}
	})
	t.Run("ErrNoArgs", func(t *testing.T) {
		_, errOut, code := runCLI(t, "get")
		if code != ExitUsage || errOut == "" {
			t.Fatalf("exit %d stderr %q, want a usage error", code, errOut)
		}
	})
}

// Every error code has an exit code, and only INTERNAL maps to 1.
func TestExitCodes(t *testing.T) {
	for _, c := range retrieve.Codes {
		code, ok := exitCodes[c]
		if !ok {
			t.Errorf("%s has no exit code", c)
			continue
		}
		if code == ExitInternal && c != retrieve.CodeInternal {
			t.Errorf("%s maps to the internal exit code", c)
		}
	}
}
