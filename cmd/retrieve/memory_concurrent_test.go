package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/memory"
)

// Two processes, one writing notes from two sources and one forgetting one
// source over and over, at the same time, on SQLite and on PostgreSQL
// (each process its own pool): no note is lost, and once the last forget
// has run, exactly the notes of the forgotten source are forgotten.
func TestMemoryWriteForgetConcurrent(t *testing.T) {
	for _, st := range []string{"sqlite", "postgres"} {
		t.Run(st, func(t *testing.T) {
			ws := testws.New(t)
			ws.Write("docs/a.md", "alpha\n")
			ws.Write("docs/b.md", "beta\n")
			args := []string{"--root", ws.Root}
			if st == "postgres" {
				args = append(args, "--store", pgtest.URL(t, "postgres_memconc"))
			}
			bin := binary(t)
			cli := func(a ...string) (string, error) {
				cmd := exec.Command(bin, append(append([]string{}, args...), a...)...)
				cmd.Env = append(os.Environ(), "CLAUDE_PROJECT_DIR=")
				out, err := cmd.Output()
				if ee, ok := err.(*exec.ExitError); ok {
					return string(out), fmt.Errorf("%v: %v: %s", a, err, ee.Stderr)
				}
				return string(out), err
			}
			if _, err := cli("memory", "init"); err != nil {
				t.Fatal(err)
			}
			const n = 6
			var wg sync.WaitGroup
			errs := make(chan error, 2*n)
			wg.Add(2)
			go func() {
				defer wg.Done()
				for i := range n {
					src := "docs/a.md"
					if i%2 == 1 {
						src = "docs/b.md"
					}
					if _, err := cli("memory", "create", "--type", "semantic", "--title", fmt.Sprintf("note %d", i), "--content", "canary "+src, "--evidence", src); err != nil {
						errs <- err
					}
				}
			}()
			go func() {
				defer wg.Done()
				for range n {
					if _, err := cli("memory", "forget", "--source", "docs/a.md"); err != nil {
						errs <- err
					}
				}
			}()
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			files, _ := filepath.Glob(filepath.Join(ws.Root, "memory", "semantic", "*.md"))
			if len(files) != n {
				t.Fatalf("%d note files, want %d", len(files), n)
			}
			out, err := cli("memory", "forget", "--source", "docs/a.md", "--json")
			if err != nil {
				t.Fatal(err)
			}
			var f memory.ForgetOutput
			if err := json.Unmarshal([]byte(out), &f); err != nil || f.Matched != n/2 || f.Already+f.Marked != n/2 {
				t.Fatalf("forget after the race: %v %s", err, out)
			}
			out, err = cli("memory", "overview", "canary", "--depth", "shallow", "--json")
			if err != nil {
				t.Fatal(err)
			}
			if c := strings.Count(out, `"path":`); c != n/2 || strings.Contains(out, "docs/a.md") {
				t.Fatalf("overview after forgetting a.md: %d notes\n%s", c, out)
			}
		})
	}
}
