package engine_test

import (
	"os/exec"
	"strings"
	"testing"
)

// heavyDeps are imports the engine must never pull in: a library user who
// runs the engine with the sources of their choice gets no parser, no
// database driver and no HTML library they did not ask for (they come with
// the sources and adapters that need them, injected through Options).
var heavyDeps = []string{
	"github.com/tree-sitter/",        // code parsers (tree-sitter runtime and grammars, cgo): Options.Code
	"github.com/jackc/pgx",           // PostgreSQL
	"modernc.org/sqlite",             // SQLite
	"github.com/go-sql-driver/",      // MariaDB/MySQL
	"golang.org/x/net/html",          // HTML parsing
	"github.com/PuerkitoBio/goquery", // CSS selection
	"github.com/andybalholm/cascadia",
	"codeberg.org/readeck/go-readability",
	"github.com/JohannesKaufmann/html-to-markdown",
	"github.com/modelcontextprotocol/", // servers
	"github.com/spf13/cobra",           // the CLI
}

func TestEngineDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "github.com/retrieve-dev/retrieve/engine").Output()
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
				t.Errorf("the engine depends on %s (%s…): inject it instead (docs/ARCHITECTURE.md)", d, h)
			}
		}
		if d == "database/sql" { // uuid imports only database/sql/driver's interfaces
			t.Errorf("the engine depends on database/sql: inject the store instead")
		}
	}
}
