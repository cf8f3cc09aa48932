package workspace_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// fsCalls are the functions that open, stat, list or change a path by
// name. Outside the workspace package, a call to one of them must be on the
// allow-list below: everything that touches a workspace path goes through
// workspace.FS.
var fsCalls = map[string]map[string]bool{
	"os": set("Open", "OpenFile", "ReadFile", "WriteFile", "Stat", "Lstat", "Create", "CreateTemp", "Mkdir", "MkdirAll",
		"MkdirTemp", "ReadDir", "Remove", "RemoveAll", "Rename", "Readlink", "Symlink", "Link", "Chmod", "Chown", "Lchown",
		"Chtimes", "Truncate", "DirFS", "OpenRoot", "OpenInRoot", "CopyFS"),
	"path/filepath": set("Walk", "WalkDir", "EvalSymlinks", "Glob"),
	"io/ioutil":     set("ReadFile", "WriteFile", "ReadDir", "TempFile", "TempDir"),
	"syscall": set("Open", "Openat", "Creat", "Stat", "Lstat", "Statfs", "Mkdir", "Rmdir", "Unlink", "Rename", "Readlink",
		"Symlink", "Link", "Chmod", "Chown", "Lchown", "Truncate", "Access", "Utimes", "UtimesNano"),
}

// allowed are the reviewed calls on paths that are not workspace files,
// keyed by package directory, function ("Recv.Method" for methods) and
// call. Every entry says why; an entry that no longer matches a call fails
// the test, so the list stays short and true.
var allowed = map[string]string{
	// retrieve's own files: the spool, the store, the state directory.
	"engine spool.Write os.MkdirAll":            "the spool folder .retrieve/tmp (the engine's temp files)",
	"engine spool.Write os.CreateTemp":          "a spool temp file",
	"engine spool.close os.Remove":              "removes the spool temp file",
	"cmd/retrieve app.graph os.Stat":            "checks that the SQLite store file exists",
	"source/file hashCache.load os.ReadFile":    "the file hash cache in .retrieve/cache/hashes (retrieve's own state)",
	"source/file hashCache.store os.MkdirAll":   "the file hash cache folder",
	"source/file hashCache.store os.Stat":       "the hash cache's .gitignore",
	"source/file hashCache.store os.WriteFile":  "the hash cache's .gitignore",
	"source/file hashCache.store os.CreateTemp": "a hash cache entry, written atomically",
	"source/file hashCache.store os.Rename":     "a hash cache entry, written atomically",
	"source/file hashCache.store os.Remove":     "removes a failed hash cache temp file",
	"memory Service.loadCheck os.ReadFile":      "the memory index's last full check, .retrieve/cache/memory-check-*.json (retrieve's own state)",
	"memory Service.saveCheck os.MkdirAll":      "the .retrieve/cache folder",
	"memory Service.saveCheck os.CreateTemp":    "the last full check, written atomically",
	"memory Service.saveCheck os.Rename":        "the last full check, written atomically",
	"memory Service.saveCheck os.Remove":        "removes a failed temp file of the last full check",
	"memory Service.Watch os.MkdirAll":          "the .retrieve/cache folder, where the memory watcher's sync cookies are made",
	"memory watcher.sync os.OpenFile":           "a sync cookie of the memory watcher in .retrieve/cache (an empty file, retrieve's own state)",
	"memory watcher.sync os.Remove":             "removes the memory watcher's sync cookie",
	"config EnsureDir os.MkdirAll":              "creates the state folder .retrieve",
	"config EnsureDir os.Stat":                  "checks for .retrieve/.gitignore",
	"config EnsureDir os.WriteFile":             "writes .retrieve/.gitignore",
	"config Init os.OpenFile":                   "creates .retrieve/config.yaml (retrieve init)",
	"policy NewDeny os.OpenInRoot":              "reads .retrieveignore inside the root (an os.Root call)",
	"policy Rel path/filepath.EvalSymlinks":     "an absolute target: the root may itself be reached through a symlink (names only, no file is read)",
	// Session journals: retrieve's own state under .retrieve/sessions (docs/sessions.md).
	"session Journal.Append os.MkdirAll":        "creates .retrieve/sessions",
	"session Journal.Append os.OpenFile":        "appends to a session's journal (.retrieve/sessions/<id>.jsonl)",
	"session Journal.List os.ReadDir":           "lists the journals of .retrieve/sessions",
	"session Journal.PutBlob os.Stat":           "a kept blob (.retrieve/sessions/blobs) is written once",
	"session Journal.PutBlob os.MkdirAll":       "creates .retrieve/sessions/blobs",
	"session Journal.PutBlob os.CreateTemp":     "writes a blob to a temp file first",
	"session Journal.PutBlob os.Rename":         "renames the blob into place",
	"session Journal.PutBlob os.Remove":         "removes the temp file of a failed blob write",
	"session Journal.RemoveBlob os.Remove":      "drops a blob once the store holds its bytes",
	"cmd/retrieve hookRun.logf os.OpenFile":     "appends to the hook's log, .retrieve/hook.log",
	"cmd/retrieve hookSessionStart os.OpenFile": "appends RETRIEVE_SESSION_ID to Claude Code's $CLAUDE_ENV_FILE (the host's file for the agent's shell, not a workspace file)",
	"cmd/retrieve hookRoot os.Stat":             "checks that the hook's workspace root is a directory",
	"cmd/retrieve systemRootsPresent os.Stat":   "the system's certificate files (crypto/x509's list), to skip parsing the fallback roots",
	"cmd/retrieve dirHasEntry os.Open":          "the system's certificate folders (crypto/x509's list), to skip parsing the fallback roots",
	// The process's own state.
	"extract currentAddressSpace os.ReadFile": "reads /proc/self/status for the jq sandbox's memory limit",
	// git metadata: read to describe a file's version, never returned.
	"source/file findRepo os.Lstat":                       "looks for .git or HEAD from the workspace up, so that git is not started to find the repository",
	"source/file findRepo os.ReadFile":                    "reads a worktree's commondir file",
	"source/file readGitFile os.ReadFile":                 "reads a .git file (a worktree, a submodule) naming its git folder",
	"source/file isRegular os.Lstat":                      "checks that a worktree's git folder holds HEAD",
	"source/file isGitDir os.Lstat":                       "checks that a .git folder holds HEAD (what git checks)",
	"source/file isGitDir os.Stat":                        "checks that a .git folder holds objects (what git checks)",
	"source/file repoConfig os.Open":                      "reads the repository's config (and config.worktree)",
	"source/file repoConfig path/filepath.EvalSymlinks":   "compares a submodule's core.worktree with the folder holding its .git file",
	"source/file stampOf os.Stat":                         "stats git's index, HEAD, ref and packed-refs for the version cache key",
	"source/file stampOf syscall.Stat":                    "the same stats on Linux, by the system call alone",
	"source/file gitRepo.headRef os.ReadFile":             "reads .git/HEAD for the version cache key",
	"source/file gitRepo.head os.ReadFile":                "reads .git/HEAD to resolve the checked-out commit",
	"source/file gitRepo.readRef os.ReadFile":             "reads a loose ref",
	"source/file gitRepo.readRef os.Open":                 "reads packed-refs",
	"source/file gitRepo.stateInProcess os.ReadFile":      "reads git's index for the file's entry",
	"source/file gitRepo.stateInProcess os.Stat":          "stats git's index (racily clean entries)",
	"source/file idxReadFS.Open os.ReadFile":              "reads a pack index whole for go-git's object storage (commit and trees of HEAD)",
	"source/git New path/filepath.EvalSymlinks":           "resolves the root to compare it with git's top level",
	"source/git Source.repoOf os.Stat":                    "finds the folder whose repository holds a git: target (content comes from git objects)",
	"source/git Source.repoOf path/filepath.EvalSymlinks": "resolves git's top level",
	// SQLite databases named by a connection of the configuration: the driver opens them by name.
	"source/sql conn.openSQLite os.Stat": "checks that a SQLite connection's file exists",
	"source/sql fileHash.of os.Stat":     "the SQLite file's size and mtime, for its hash cache",
	"source/sql fileHash.of os.Open":     "hashes the SQLite file and its WAL (the version of a query's result)",
	// Named by the user on the command line: an input, not a workspace target.
	"cmd/retrieve readBatch os.Open":                  "the batch file of get --batch",
	"cmd/retrieve readArgFile os.Open":                "a file named by a graph command's argument",
	"cmd/retrieve noteFlags.content os.ReadFile":      "the --file of memory add/update",
	"cmd/retrieve isFile os.Stat":                     "the result file given to verify",
	"cmd/retrieve readResultFile os.ReadFile":         "the result file given to verify",
	"cmd/retrieve signingKey os.ReadFile":             "the ledger's ed25519 key file given with --key (kept outside the store and the workspace)",
	"cmd/retrieve newLedgerKeygenCmd os.OpenFile":     "writes a new key file where --out says, 0600, never over an existing one",
	"cmd/retrieve saveCheckpoint os.MkdirAll":         "the folder .retrieve/checkpoints (retrieve's own state)",
	"cmd/retrieve saveCheckpoint os.WriteFile":        "a signed checkpoint and its public key under .retrieve/checkpoints",
	"cmd/retrieve latestNote os.ReadFile":             "reads a checkpoint and the public key (.retrieve/checkpoints, or --pubkey)",
	"cmd/retrieve writeOutput os.CreateTemp":          "export -o FILE: the file the user names, written beside it and renamed",
	"cmd/retrieve writeOutput os.Rename":              "export -o FILE: the file the user names, written beside it and renamed",
	"cmd/retrieve writeOutput os.Remove":              "export -o FILE: removes its temporary file when the export fails",
	"cmd/retrieve openBundleFile os.Open":             "verify --bundle FILE: the evidence bundle the user names (read, never extracted)",
	"cmd/retrieve runVerifyBundle os.ReadFile":        "verify --bundle --key FILE: the log's public key the user names",
	"cmd/retrieve bundleApp os.MkdirTemp":             "verify --bundle: an empty temporary workspace for the engine that extracts the data again (nothing is written in it)",
	"cmd/retrieve bundleApp os.RemoveAll":             "verify --bundle: removes that temporary workspace",
	"cmd/retrieve newestNote path/filepath.Glob":      "lists the checkpoints under .retrieve/checkpoints",
	"cmd/retrieve newLedgerWitnessCmd os.ReadFile":    "reads the newest checkpoint under .retrieve/checkpoints, to timestamp it",
	"cmd/retrieve newLedgerWitnessCmd os.WriteFile":   "the authority's timestamp beside the checkpoint under .retrieve/checkpoints",
	"cmd/retrieve checkWitness os.ReadFile":           "reads a checkpoint and its timestamp under .retrieve/checkpoints",
	"cmd/retrieve publishLeaves os.WriteFile":         "the log's leaf hashes beside a checkpoint under .retrieve/checkpoints",
	"cmd/retrieve readLeavesFiles path/filepath.Glob": "lists the leaf-hash files under .retrieve/checkpoints",
	"cmd/retrieve readLeavesFiles os.ReadFile":        "reads a leaf-hash file under .retrieve/checkpoints",
	"graph readJSON os.Stat":                          "graph import: a file of the folder the user names",
	"graph readJSON os.ReadFile":                      "graph import: a file of the folder the user names",
	"graph importDataDir os.Stat":                     "graph import: the upstream folder the user names",
	"graph Tools.Import os.ReadFile":                  "graph import: the upstream folder the user names",
	"graph Tools.Export os.MkdirAll":                  "graph export: the folder the user names",
	"graph Tools.Export os.WriteFile":                 "graph export: the folder the user names",
	"wiki Wiki.root os.MkdirAll":                      "creates the wiki folder itself when no workspace FS holds it (the caller chose it; what lies under it is confined)",
	// MCP clients' config files (retrieve mcp install): the user's files, or a project-scoped one
	// whose symlinks must stay in the workspace (mcpconfig.resolve).
	"internal/mcpconfig Apply os.Stat":                       "the config file's mode, kept and checked for read-only",
	"internal/mcpconfig Apply os.MkdirAll":                   "creates the config file's folder (.cursor, ~/.codex)",
	"internal/mcpconfig resolve path/filepath.EvalSymlinks":  "follows a symlinked config file, and checks a project one stays in the workspace",
	"internal/mcpconfig writeFile os.CreateTemp":             "writes the config file or its backup atomically",
	"internal/mcpconfig removeOldBackups os.ReadDir":         "lists the config file's folder for the backups earlier installs left",
	"internal/mcpconfig removeOldBackups os.Remove":          "removes an earlier install's backup (FILE.<UTC time>.bak), keeping the last",
	"internal/mcpconfig writeFile os.Chmod":                  "keeps the config file's mode",
	"internal/mcpconfig writeFile os.Rename":                 "writes the config file or its backup atomically",
	"internal/mcpconfig writeFile os.Remove":                 "removes a failed temp file",
	"cmd/retrieve mcpInstallPlan path/filepath.EvalSymlinks": "the absolute path of this binary, for Claude Desktop's entry",
	"ops/opstest BareRead os.ReadFile":                       "the bare server of the small-read benchmarks (../shared/bench/baseline's work, on purpose without the workspace's checks); test support, never in the binary",
}

// allowedPackages are support packages for tests, which build temp
// workspaces and repositories and never run in the binary.
var allowedPackages = map[string]string{
	"workspace":                      "the abstraction itself",
	"internal/testws":                "builds temp workspaces for tests",
	"graph/graphtest":                "the graph conformance suite's temp folders",
	"internal/pgtest":                "test databases",
	"internal/codecorpus":            "the outline benchmarks' corpus: reads the Go toolchain's, Python's and bench/node_modules' sources, never part of the binary",
	"format/pdf/internal/gentables":  "go generate's table builder: reads font metric files at development time, never part of the binary",
	"format/pdf/internal/pdfquality": "the PDF quality measurement (make bench-pdf): reads the corpus it is given, never part of the binary",
	"store/sqlite":                   "the embedded store's own files (its database, snapshot objects and their temp files, the ledger journal), wherever --store puts them; never a workspace file",
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}

// TestSecurityNoWorkspaceIOOutsideFS parses every Go file of the module
// (tests excepted) and fails on a call that opens, stats, lists or changes
// a path by name outside the workspace package, unless the allow-list says
// why that path is not a workspace file.
func TestSecurityNoWorkspaceIOOutsideFS(t *testing.T) {
	root := moduleRoot(t)
	used := map[string]bool{}
	var bad []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || n == "vendor" || strings.HasPrefix(n, ".") || n == "node_modules") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); p != root && err == nil {
				return filepath.SkipDir // another module (tools, bench/officecompare): not in the binary
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		pkg := filepath.ToSlash(filepath.Dir(rel))
		if _, ok := allowedPackages[pkg]; ok {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		names := map[string]string{} // local name → import path
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			if _, ok := fsCalls[ip]; !ok {
				continue
			}
			local := ip[strings.LastIndex(ip, "/")+1:]
			if imp.Name != nil {
				local = imp.Name.Name
			}
			names[local] = ip
		}
		if len(names) == 0 {
			return nil
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			fname := fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) == 1 {
				fname = recvName(fn.Recv.List[0].Type) + "." + fname
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				id, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				ip, ok := names[id.Name]
				if !ok || !fsCalls[ip][sel.Sel.Name] {
					return true
				}
				key := pkg + " " + fname + " " + ip + "." + sel.Sel.Name
				if _, ok := allowed[key]; ok {
					used[key] = true
					return true
				}
				bad = append(bad, fset.Position(call.Pos()).String()+": "+key)
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("file system call outside workspace.FS (use the workspace, or add a reviewed allow-list entry): %s", b)
	}
	var stale []string
	for k := range allowed {
		if !used[k] {
			stale = append(stale, k)
		}
	}
	sort.Strings(stale)
	for _, k := range stale {
		t.Errorf("allow-list entry matches no call any more; remove it: %s", k)
	}
}

func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}
