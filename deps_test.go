package retrieve_test

import (
	"os/exec"
	"strings"
	"testing"
)

// heavyDeps are imports the contract package must never pull in: a library
// user who imports it for its types gets no parser, no database driver and
// no HTML library (they come with the sources and adapters that need them).
var heavyDeps = []string{
	"github.com/odvcencio/gotreesitter", // code parsers (tree-sitter grammars)
	"github.com/jackc/pgx",              // PostgreSQL
	"modernc.org/sqlite",                // SQLite
	"github.com/go-sql-driver/",         // MariaDB/MySQL
	"golang.org/x/net/html",             // HTML parsing
	"github.com/PuerkitoBio/goquery",    // CSS selection
	"github.com/andybalholm/cascadia",
	"codeberg.org/readeck/go-readability",
	"github.com/JohannesKaufmann/html-to-markdown",
	"github.com/modelcontextprotocol/", // servers
	"github.com/spf13/cobra",           // the CLI
}

func TestContractDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "github.com/retrieve-dev/retrieve").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages: %q", len(deps), deps)
	}
	for _, d := range deps {
		for _, h := range heavyDeps {
			if strings.HasPrefix(d, h) {
				t.Errorf("the contract package depends on %s (%s…): inject it instead (docs/ARCHITECTURE.md)", d, h)
			}
		}
		if d == "database/sql" { // uuid imports only database/sql/driver's interfaces
			t.Errorf("the contract package depends on database/sql: inject the store instead")
		}
		if strings.HasPrefix(d, "github.com/retrieve-dev/retrieve/") {
			switch strings.TrimPrefix(d, "github.com/retrieve-dev/retrieve/") {
			case "extract", "policy", "store", "intl":
			default:
				t.Errorf("the contract package imports %s; it may import only extract, policy, store and intl", d)
			}
		}
	}
}
