package testws

import (
	"os"
	"testing"
)

// NeedsCgo skips a test that outlines a tree-sitter language (TypeScript,
// Python, Java, …: extract/code runs tree-sitter's C runtime) in a build
// without cgo, where those languages are UNSUPPORTED_FORMAT; under CI=true,
// which builds with cgo, it fails the test instead.
func NeedsCgo(t testing.TB, what string) {
	t.Helper()
	if Cgo {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("needs cgo: %s is parsed by tree-sitter's C runtime, and CI=true must run it (CGO_ENABLED=1 and a C compiler)", what)
	}
	t.Skipf("needs cgo: %s is parsed by tree-sitter's C runtime (CGO_ENABLED=1 and a C compiler)", what)
}
