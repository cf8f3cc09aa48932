package retrieve_test

import (
	"os/exec"
	"strings"
	"testing"
)

// contractDeps are the only packages outside the standard library the
// contract package may depend on: it is the bottom of the module, imported
// by every other package, so a library user who imports it for its types
// gets no parser, no database driver, no HTML library and no engine.
// Everything else is above it (docs/ARCHITECTURE.md).
var contractDeps = []string{
	"github.com/retrieve-dev/retrieve/internal/sentinel", // the leaves' sentinel errors, for the translation table
	"github.com/retrieve-dev/retrieve/intl",              // FindQuote's loose folding
	"github.com/google/uuid",                             // NewID (UUIDv7)
	"github.com/gowebpki/jcs",                            // CanonicalJSON (RFC 8785)
	"golang.org/x/text/",                                 // through intl
	"github.com/blevesearch/snowballstem",                // through intl
	"github.com/rivo/uniseg",                             // through intl
}

func TestContractDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "github.com/retrieve-dev/retrieve").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 2 || deps[len(deps)-1] != "github.com/retrieve-dev/retrieve" {
		t.Fatalf("go list -deps listed %q, want the contract package last", deps)
	}
	for _, d := range deps[:len(deps)-1] {
		allowed := false
		for _, a := range contractDeps {
			if d == a || strings.HasSuffix(a, "/") && strings.HasPrefix(d, a) || strings.HasPrefix(d, a+"/") {
				allowed = true
			}
		}
		if !allowed {
			t.Errorf("the contract package depends on %s: it may depend only on the standard library and %q; move the code that needs it up (engine/) or inject it", d, contractDeps)
		}
	}
}
