// Package codecorpus finds the 10k-line source files that the outline
// benchmarks (extract/code, engine) and bench/outline.sh time against
// universal-ctags: public code that no one on the team wrote, whole files
// found on this machine and joined:
//   - go: net/http/h2_bundle.go of the Go toolchain (12k lines);
//   - python: the standard library's _pydecimal.py and typing.py (9.8k);
//   - typescript: zod's v3/types.ts and v4/core/schemas.ts (10.4k), from
//     the node_modules that `npm ci` puts in bench/ or test/mcpclient/.
package codecorpus

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Languages are the languages of the corpus, in report order.
var Languages = []string{"python", "typescript", "go"}

// Files returns the files joined for lang, or nil when this machine lacks
// them.
func Files(lang string) []string {
	switch lang {
	case "go":
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return nil
		}
		return existing(filepath.Join(strings.TrimSpace(string(out)), "src", "net", "http", "h2_bundle.go"))
	case "python":
		dirs, _ := filepath.Glob("/usr/lib/python3.*")
		if home, err := os.UserHomeDir(); err == nil {
			more, _ := filepath.Glob(filepath.Join(home, ".pyenv", "versions", "*", "lib", "python3.*"))
			dirs = append(dirs, more...)
		}
		sort.Strings(dirs)
		for _, d := range dirs {
			if f := existing(filepath.Join(d, "_pydecimal.py"), filepath.Join(d, "typing.py")); f != nil {
				return f
			}
		}
	case "typescript":
		root := moduleRoot()
		for _, nm := range []string{"bench/node_modules", "test/mcpclient/node_modules"} {
			src := filepath.Join(root, nm, "zod", "src")
			if f := existing(filepath.Join(src, "v3", "types.ts"), filepath.Join(src, "v4", "core", "schemas.ts")); f != nil {
				return f
			}
		}
	}
	return nil
}

// Load returns the files of lang joined, each ending with a newline; an
// error says what is missing.
func Load(lang string) ([]byte, error) {
	files := Files(lang)
	if len(files) == 0 {
		return nil, fmt.Errorf("no %s corpus on this machine (the Go toolchain's sources, Python's standard library, or zod in bench/node_modules after `npm ci`)", lang)
	}
	var buf bytes.Buffer
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		buf.Write(b)
		if !bytes.HasSuffix(b, []byte("\n")) {
			buf.WriteByte('\n')
		}
	}
	return buf.Bytes(), nil
}

func existing(paths ...string) []string {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil
		}
	}
	return paths
}

// moduleRoot is the nearest folder above the working directory with a
// go.mod (a test runs in its package's folder).
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}
