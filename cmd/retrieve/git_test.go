package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
)

func TestGetGitAndVerify(t *testing.T) {
	ws := testws.New(t)
	ws.Write("notes.md", "# Notes\n\nfirst\n")
	c1 := ws.InitGit()
	root := []string{"--root", ws.Root}

	out, errOut, code := runCLI(t, append(root, "get", "git:HEAD:notes.md:3", "--json")...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	contracttest.Check(t, []byte(out))
	var res retrieve.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Citation.Reference != "git:"+c1+":notes.md:3-3" || res.Retrieved.Data != "first\n" {
		t.Fatalf("reference %s data %q", res.Citation.Reference, res.Retrieved.Data)
	}
	// A committed citation keeps verifying after the file changes.
	ws.Write("notes.md", "# Notes\n\nrewritten, longer\n")
	ws.Commit("rewrite")
	if out, _, code := runCLI(t, append(root, "verify", res.RetrievalID, "--json")...); code != ExitOK || !strings.Contains(out, `"verified"`) {
		t.Fatalf("pinned citation: exit %d\n%s", code, out)
	}

	// A dirty working copy: verified against its snapshot only.
	ws.Write("notes.md", "# Notes\n\nuncommitted edit here\n")
	out, _, code = runCLI(t, append(root, "get", "notes.md:3", "--json")...)
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	var dirty retrieve.Result
	if err := json.Unmarshal([]byte(out), &dirty); err != nil {
		t.Fatal(err)
	}
	if v := *dirty.Citation.Version; !strings.HasSuffix(v, "+dirty") {
		t.Fatalf("version %s", v)
	}
	ws.Write("notes.md", "# Notes\n\nedited again, differently\n")
	out, _, code = runCLI(t, append(root, "verify", dirty.RetrievalID, "--json")...)
	if code != ExitOK || !strings.Contains(out, `"verified"`) || !strings.Contains(out, "recorded snapshot only") {
		t.Fatalf("dirty citation: exit %d\n%s", code, out)
	}

	// Unknown revision: exit code of VERSION_NOT_FOUND, alternatives listed.
	out, _, code = runCLI(t, append(root, "get", "git:v9:notes.md", "--json")...)
	if code != exitCode(retrieve.CodeVersionNotFound) || !strings.Contains(out, `"main"`) {
		t.Fatalf("exit %d\n%s", code, out)
	}
}
