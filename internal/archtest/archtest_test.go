package archtest_test

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/retrieve-dev/retrieve"

// rule says which packages of the module the packages it names may import
// (their non-test imports). Names are relative to the module ("." is the
// contract package); a name ending in "/*" names the packages below a
// folder. Every package may import the leaf intl.
type rule struct {
	pkgs  []string
	may   []string
	every bool // cmd/retrieve: it wires everything
}

// table is docs/ARCHITECTURE.md's "What may import what", layer by layer
// from the bottom: keep the two the same.
var table = []rule{
	// Leaves.
	{pkgs: []string{"intl", "internal/sentinel", "store", "docs", "extract/code", "internal/testws", "internal/pgtest", "internal/testproc", "internal/tsatest", "internal/langcorpus", "internal/codecorpus", "internal/binrec", "internal/archtest", "internal/lint", "internal/memprobe", "internal/frontmatter"}},
	{pkgs: []string{"extract", "policy"}, may: []string{"internal/sentinel", "internal/frontmatter"}},
	{pkgs: []string{"workspace"}, may: []string{"policy"}},
	{pkgs: []string{"format"}, may: []string{".", "extract", "policy", "internal/sentinel"}},
	{pkgs: []string{"format/pdf"}, may: []string{"format"}},
	{pkgs: []string{"format/pdf/internal/pdfquality"}, may: []string{"format", "format/pdf"}},
	{pkgs: []string{"format/pdf/internal/gentables"}},
	{pkgs: []string{"format/internal/zipdoc", "format/internal/mdtext"}, may: []string{"format"}},
	{pkgs: []string{"format/internal/doctest"}, may: []string{"format", "format/formattest"}},
	{pkgs: []string{"format/internal/sheet"}, may: []string{"format", "format/internal/mdtext"}},
	{pkgs: []string{"format/ooxml", "format/odf", "format/epub"}, may: []string{"format", "format/internal/zipdoc", "format/internal/mdtext", "format/internal/sheet"}},
	// The formats of the registry (their own rows above), the suite, the list.
	{pkgs: []string{"format/formattest"}, may: []string{".", "format"}},
	{pkgs: []string{"format/formats"}, may: []string{"format", "format/*"}},
	{pkgs: []string{"format/*"}, may: []string{"format", "format/text", "extract"}},
	// The contract.
	{pkgs: []string{"."}, may: []string{"internal/sentinel"}},
	// On the contract.
	{pkgs: []string{"internal/webclient"}, may: []string{"."}},
	// config and internal/mcpconfig open their files with workspace.ReadRegular (no FIFO, a size cap).
	{pkgs: []string{"config", "internal/mcpconfig"}, may: []string{".", "workspace", "policy"}},
	{pkgs: []string{"internal/contracttest"}, may: []string{"docs"}},
	{pkgs: []string{"internal/webcache"}, may: []string{".", "store", "internal/webclient"}},
	{pkgs: []string{"extract/codeparser"}, may: []string{".", "extract/code"}},
	{pkgs: []string{"wiki"}, may: []string{".", "workspace", "internal/frontmatter"}},
	{pkgs: []string{"graph"}, may: []string{".", "graph", "wiki", "store"}},
	{pkgs: []string{"graph/graphtest"}, may: []string{".", "graph", "wiki", "store", "internal/testproc"}},
	{pkgs: []string{"memory"}, may: []string{".", "extract", "workspace", "internal/frontmatter"}},
	{pkgs: []string{"check"}, may: []string{".", "store"}},
	{pkgs: []string{"source/graph"}, may: []string{".", "extract", "policy", "workspace", "config", "graph"}},
	{pkgs: []string{"source/wiki"}, may: []string{".", "extract", "policy", "workspace", "config", "wiki"}},
	{pkgs: []string{"source/memory"}, may: []string{".", "extract", "policy", "workspace", "config", "memory"}},
	{pkgs: []string{"source/web"}, may: []string{".", "extract", "policy", "workspace", "config", "internal/webclient", "format/html"}},
	{pkgs: []string{"source/api"}, may: []string{".", "extract", "policy", "workspace", "config", "internal/webclient"}},
	{pkgs: []string{"source/sourcetest"}, may: []string{".", "engine", "internal/contracttest", "internal/testws", "check", "ops"}},
	{pkgs: []string{"source/sources"}, may: []string{".", "config", "workspace", "graph", "wiki", "internal/webclient",
		"source/file", "source/git", "source/sql", "source/memory", "source/graph", "source/wiki", "source/api", "source/web"}},
	{pkgs: []string{"source/*"}, may: []string{".", "extract", "policy", "workspace", "config"}},
	{pkgs: []string{"store/internal/sqlcommon"}, may: []string{"store", "graph", "memory"}},
	// The tamper-evident log over the ledger: on the store's types only.
	{pkgs: []string{"ledger"}, may: []string{"store"}},
	{pkgs: []string{"store/sqlite", "store/postgres", "store/storetest"}, may: []string{".", "store", "graph", "wiki", "memory", "store/internal/sqlcommon", "ledger", "internal/binrec"}},
	{pkgs: []string{"store/stores"}, may: []string{".", "config", "store", "graph", "wiki", "memory", "store/sqlite", "store/postgres"}},
	// The engine, on the contract, the leaves and the store interface.
	{pkgs: []string{"engine"}, may: []string{".", "extract", "policy", "store", "format", "internal/binrec"}},
	// Services and adapters.
	{pkgs: []string{"session"}, may: []string{".", "engine", "policy", "check", "workspace"}},
	{pkgs: []string{"ops"}, may: []string{".", "engine", "store", "docs", "memory", "graph", "wiki", "session", "check"}},
	{pkgs: []string{"ops/opstest"}, may: []string{".", "engine", "store", "store/sqlite", "docs", "memory", "graph", "wiki", "session", "check", "ops",
		"extract/code", "extract/codeparser", "format/formats", "workspace", "internal/testws", "source/file", "source/sources"}},
	{pkgs: []string{"mcpserver", "httpapi"}, may: []string{".", "ops", "store", "docs", "wiki"}},
	{pkgs: []string{"ui"}, may: []string{".", "ops", "httpapi", "wiki", "check", "store"}},
	{pkgs: []string{"cmd/*"}, every: true},
}

// ruleFor returns the first rule that names pkg.
func ruleFor(pkg string) (rule, bool) {
	for _, r := range table {
		for _, p := range r.pkgs {
			if names(p, pkg) {
				return r, true
			}
		}
	}
	return rule{}, false
}

// names reports whether the table's name p ("engine", "format/*") names pkg.
func names(p, pkg string) bool {
	return p == pkg || strings.HasSuffix(p, "/*") && strings.HasPrefix(pkg, strings.TrimSuffix(p, "*"))
}

// imports lists every package of the module with the module packages it
// imports, relative to the module.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	rel := func(p string) (string, bool) {
		if p == module {
			return ".", true
		}
		r, ok := strings.CutPrefix(p, module+"/")
		return r, ok
	}
	m := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkg, ok := rel(f[0])
		if !ok {
			continue
		}
		m[pkg] = []string{}
		for _, imp := range f[1:] {
			if r, ok := rel(imp); ok {
				m[pkg] = append(m[pkg], r)
			}
		}
	}
	return m
}

// violations lists what all (package → module imports) breaks of the table.
func violations(all map[string][]string) []string {
	var v []string
	for pkg, imps := range all {
		r, ok := ruleFor(pkg)
		if !ok {
			v = append(v, pkg+" has no row in the import table: add it to docs/ARCHITECTURE.md and to this test")
			continue
		}
		if r.every {
			continue
		}
		for _, imp := range imps {
			if imp != "intl" && !slices.ContainsFunc(r.may, func(m string) bool { return names(m, imp) }) {
				v = append(v, fmt.Sprintf("%s imports %s; the table (docs/ARCHITECTURE.md) lets it import only %q and intl", pkg, imp, r.may))
			}
		}
	}
	slices.Sort(v)
	return v
}

// TestImportTable fails when a package of the module imports a package of
// the module that docs/ARCHITECTURE.md's table does not let it import, or
// when a package has no row in the table.
func TestImportTable(t *testing.T) {
	all := imports(t)
	if len(all) < 30 || all["engine"] == nil || all["."] == nil {
		t.Fatalf("go list found %d packages (engine %v, root %v): not the module", len(all), all["engine"], all["."])
	}
	for _, v := range violations(all) {
		t.Error(v)
	}
}

// TestViolationsFound: the imports that climb back up a layer are caught.
func TestViolationsFound(t *testing.T) {
	got := violations(map[string][]string{
		".":            {"intl", "engine"},               // the contract on the engine
		"source/file":  {".", "workspace", "source/git"}, // a source on another
		"check":        {".", "store"},                   // allowed
		"cmd/retrieve": {"engine", "store/sqlite"},       // allowed: it wires
		"s3":           {"."},                            // no row
	})
	want := []string{".", "s3", "source/file"}
	if len(got) != len(want) {
		t.Fatalf("violations = %q, want one each for %q", got, want)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w+" ") {
			t.Errorf("violation %d = %q, want one about %s", i, got[i], w)
		}
	}
}
