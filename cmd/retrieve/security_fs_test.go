package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/testws"
)

// secCLI runs the CLI in a hostile workspace and checks the exit code, the
// error code in the output and that no secret leaked.
func secCLI(t *testing.T, h *testws.Hostile, wantExit int, wantCode string, args ...string) {
	t.Helper()
	out, errOut, code := runCLI(t, append([]string{"--root", h.Root, "--json"}, args...)...)
	if code != wantExit || !strings.Contains(out+errOut, wantCode) {
		t.Errorf("%v: exit %d, want %d with %s\nstdout %s\nstderr %s", args, code, wantExit, wantCode, out, errOut)
	}
	h.AssertNoLeak(t, out, errOut)
}

// Finding 1: a symlink in memory/ to a file outside the root or to a denied
// file is refused by memory details, memory read and memory: targets.
func TestSecurityMemorySymlinkCLI(t *testing.T) {
	h := testws.NewHostile(t)
	secCLI(t, h, ExitRefused, "OUTSIDE_ROOT", "memory", "details", testws.HostileMemoryLink)
	secCLI(t, h, ExitRefused, "SENSITIVE_PATH", "memory", "details", testws.HostileMemoryEnvLink)
	secCLI(t, h, ExitRefused, "OUTSIDE_ROOT", "memory", "read", testws.HostileMemoryLink)
	secCLI(t, h, ExitRefused, "OUTSIDE_ROOT", "get", "memory:semantic/evil.md")
	secCLI(t, h, ExitRefused, "SENSITIVE_PATH", "get", "memory:semantic/dotenv.md")
	// A search for the secret's words finds nothing to leak either.
	out, errOut, _ := runCLI(t, "--root", h.Root, "--json", "memory", "overview", "SENTINEL")
	h.AssertNoLeak(t, out, errOut)
	// The benign note still reads.
	if out, errOut, code := runCLI(t, "--root", h.Root, "memory", "details", testws.HostileMemoryNote); code != ExitOK || !strings.Contains(out, "Tag it.") {
		t.Errorf("benign note: exit %d\n%s%s", code, out, errOut)
	}
	h.AssertOutsideUntouched(t)
}

// Finding 2: folder links under memory/, wiki/ and elsewhere escape for
// neither reads nor writes.
func TestSecurityDirectorySymlinkCLI(t *testing.T) {
	h := testws.NewHostile(t)
	secCLI(t, h, ExitRefused, "OUTSIDE_ROOT", "get", "memory:episodic/secret.md")
	secCLI(t, h, ExitRefused, "OUTSIDE_ROOT", "get", testws.HostileDirLink+"/secret.md")
	secCLI(t, h, ExitRefused, "OUTSIDE_ROOT", "get", "wiki:topic/secret")
	secCLI(t, h, ExitRefused, "OUTSIDE_ROOT", "wiki", "read", "topic/secret")
	secCLI(t, h, ExitRefused, "OUTSIDE_ROOT", "quote", testws.HostileDirLink+"/secret.md", "SENTINEL")
	secCLI(t, h, ExitRefused, "OUTSIDE_ROOT", "memory", "create", "--type", "episodic", "--title", "Escape", "--content", "x")
	secCLI(t, h, ExitRefused, "OUTSIDE_ROOT", "wiki", "write", "--category", "topic", "--title", "Escape", "--content", "x")
	// The outline walker follows no folder link.
	out, errOut, _ := runCLI(t, "--root", h.Root, "--json", "outline", "docs")
	h.AssertNoLeak(t, out, errOut)
	h.AssertOutsideUntouched(t)
}

// Finding 1 and 2 for file targets: a file link out of the root and a link
// to a denied file.
func TestSecurityFileSymlinkCLI(t *testing.T) {
	h := testws.NewHostile(t)
	secCLI(t, h, ExitRefused, "OUTSIDE_ROOT", "get", testws.HostileOutsideLink)
	secCLI(t, h, ExitRefused, "SENSITIVE_PATH", "get", testws.HostileEnvLink)
	secCLI(t, h, ExitRefused, "OUTSIDE_ROOT", "get", h.Outside+"/secret.md")
	secCLI(t, h, ExitRefused, "OUTSIDE_ROOT", "get", "../"+h.Outside+"/secret.md")
	h.AssertOutsideUntouched(t)
}

// Finding 5: .retrieveignore cannot re-allow the built-in deny list.
func TestSecurityDenyListFloorCLI(t *testing.T) {
	h := testws.NewHostile(t)
	for _, p := range []string{".env", ".ssh/config"} {
		secCLI(t, h, ExitRefused, "SENSITIVE_PATH", "get", p)
	}
}

// Finding 8: the deny list matches in any letter case.
func TestSecurityDenyListCaseCLI(t *testing.T) {
	h := testws.NewHostile(t)
	for _, p := range []string{".ENV.production", "keys/ID_RSA", "SERVER.KEY"} {
		secCLI(t, h, ExitRefused, "SENSITIVE_PATH", "get", p)
	}
}

// Finding 12: a hard link to a denied file is refused.
func TestSecurityHardLinkCLI(t *testing.T) {
	h := testws.NewHostile(t)
	secCLI(t, h, ExitRefused, "SENSITIVE_PATH", "get", testws.HostileHardLink)
	secCLI(t, h, ExitRefused, "SENSITIVE_PATH", "quote", testws.HostileHardLink, "SENTINEL")
}

// Finding 12: names the file system cannot hold give INVALID_PATH with a
// hint, not INTERNAL. (A command line cannot hold a NUL byte; the MCP and
// HTTP tests send one.)
func TestSecurityBadNamesCLI(t *testing.T) {
	h := testws.NewHostile(t)
	long := strings.Repeat("a", 300) + ".md"
	secCLI(t, h, ExitUsage, "INVALID_PATH", "get", long)
	secCLI(t, h, ExitUsage, "INVALID_PATH", "get", "docs/"+long)
	secCLI(t, h, ExitUsage, "INVALID_PATH", "get", strings.Repeat("d/", 2100)+"x")
	secCLI(t, h, ExitUsage, "INVALID_PATH", "memory", "details", "memory/semantic/"+long)
	secCLI(t, h, ExitUsage, "INVALID_PATH", "outline", long)
}

// Finding 2 for retrieve's own state: a repository that ships .retrieve as
// a link out of the workspace gets no store, spool or cache written there.
func TestSecurityStateDirLinkCLI(t *testing.T) {
	h := testws.NewHostile(t)
	if err := os.Symlink(h.Outside, filepath.Join(h.Root, ".retrieve")); err != nil {
		t.Fatal(err)
	}
	secCLI(t, h, ExitRefused, "OUTSIDE_ROOT", "get", "notes.txt")
	secCLI(t, h, ExitRefused, "OUTSIDE_ROOT", "memory", "details", testws.HostileMemoryNote)
	h.AssertOutsideUntouched(t)
}

// A snapshot fallback does not serve what the deny list now refuses: a file
// recorded before a pattern denied it, or before it was swapped for a link
// out of the root.
func TestSecuritySnapshotFallbackObeysRulesCLI(t *testing.T) {
	h := testws.NewHostile(t)
	h.Write("config/prod.yaml", "token: SENTINEL-RECORDED-31e7\n")
	h.Write("docs/guide.md", "# Guide\n\nSENTINEL-GUIDE-0b4d\n")
	for _, p := range []string{"config/prod.yaml", "docs/guide.md"} {
		if out, errOut, code := runCLI(t, "--root", h.Root, "get", p); code != ExitOK {
			t.Fatalf("get %s: %d %s %s", p, code, out, errOut)
		}
	}
	h.Secrets = append(h.Secrets, "SENTINEL-RECORDED-31e7", "SENTINEL-GUIDE-0b4d")
	h.Write(".retrieveignore", "config/\n")
	if err := os.Remove(filepath.Join(h.Root, "docs", "guide.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(h.Outside, "secret.md"), filepath.Join(h.Root, "docs", "guide.md")); err != nil {
		t.Fatal(err)
	}
	secCLI(t, h, ExitRefused, "SENSITIVE_PATH", "get", "config/prod.yaml", "--fallback", "snapshot")
	secCLI(t, h, ExitRefused, "OUTSIDE_ROOT", "get", "docs/guide.md", "--fallback", "snapshot")
	h.AssertOutsideUntouched(t)
}
