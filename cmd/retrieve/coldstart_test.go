package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// initTrace is a line of GODEBUG=inittrace=1: a package's init and what it
// allocated.
var initTrace = regexp.MustCompile(`(?m)^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, \d+ allocs$`)

// A cold `get` of a text file does no work it does not need at start: the
// fallback TLS roots are not parsed (systems with roots of their own),
// goldmark's extension package is not linked (its init compiles regular
// expressions; the check parses footnotes without it), and
// no package of this module builds tables at init (regular expressions,
// schemas, stop words are built on first use). Allocated bytes, not time:
// the same on a loaded machine.
func TestColdStartInitIsLazy(t *testing.T) {
	if !systemRootsPresent("linux", os.Getenv) {
		t.Skip("this machine has no system roots: the fallback roots are parsed, as they must be")
	}
	bin := binary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "small.txt"), []byte("small file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--root", dir, "get", "small.txt")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("get: %v\n%s", err, out)
	}
	inits := initTrace.FindAllSubmatch(out, -1)
	if len(inits) < 50 {
		t.Fatalf("only %d init lines in the trace:\n%s", len(inits), out)
	}
	// Each package of this module, and all of them together. (The
	// dependencies' inits cost more, docs/servers.md "Cold start", but
	// this test binary links test-only ones and every grammar: their sum
	// here says nothing of the released binary.)
	// The heaviest left is the root package's build information (9–11 KB:
	// debug.ReadBuildInfo for retrieve.Version, an exported variable).
	const budget, ownBudget = 12 << 10, 48 << 10
	own := 0
	for _, m := range inits {
		pkg, bytes := string(m[1]), string(m[2])
		n, _ := strconv.Atoi(bytes)
		if pkg == "golang.org/x/crypto/x509roots/fallback" {
			t.Errorf("the fallback roots package runs its init (parses its certificates at every start)")
		}
		if pkg == "github.com/yuin/goldmark/extension" {
			t.Errorf("goldmark's extension package is linked: its init compiles the linkify regexps at every start (~1.2 ms, 260 KB; check/footnote.go parses footnotes without it)")
		}
		// The binary is this test binary (TestMain): its own package is
		// the released binary's "main" plus the test files' tables, and
		// main, which the trace of a released binary names "main", was
		// never held to the budget.
		if pkg == "github.com/retrieve-dev/retrieve/cmd/retrieve" {
			continue
		}
		if !regexp.MustCompile(`^github\.com/retrieve-dev/retrieve(/|$)`).MatchString(pkg) {
			continue
		}
		own += n
		if n > budget {
			t.Errorf("init of %s allocates %d bytes (over %d): build its tables on first use", pkg, n, budget)
		}
	}
	if own > ownBudget {
		t.Errorf("the inits of this module's packages allocate %d bytes together (over %d): build tables on first use", own, ownBudget)
	}
	t.Logf("init allocations of this module's packages: %d bytes", own)
}
