package git_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/testws"
)

// bigRepo makes a repository of n commits with git fast-import; every
// commit changes docs/guide.md and one of 100 other files.
func bigRepo(b *testing.B, n int) (*testws.Workspace, string) {
	ws := testws.New(b)
	ws.Git("init", "-q", "-b", "main")
	var in bytes.Buffer
	for i := 1; i <= n; i++ {
		guide := fmt.Sprintf("# Guide\n\nRevision %d.\n%s", i, strings.Repeat("Some text of the guide.\n", 200))
		other := fmt.Sprintf("file %d\n", i)
		fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\ncommitter T <t@example.invalid> %d +0000\ndata 5\nc%04d\n", i, 1700000000+i, i%10000)
		if i > 1 {
			fmt.Fprintf(&in, "from :%d\n", i-1)
		}
		fmt.Fprintf(&in, "M 100644 inline docs/guide.md\ndata %d\n%s\n", len(guide), guide)
		fmt.Fprintf(&in, "M 100644 inline src/f%d.txt\ndata %d\n%s\n", i%100, len(other), other)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = ws.Root
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v\n%s", err, out)
	}
	ws.Git("checkout", "-q", "main")
	old := ws.Git("rev-list", "--skip", fmt.Sprint(n-100), "-1", "main") // commit 100
	return ws, old
}

// BenchmarkGitOldRevision retrieves a file at commit 100 of a 10,000-commit
// repository, by full id (a citation re-retrieved) and by HEAD~N.
func BenchmarkGitOldRevision(b *testing.B) {
	ws, old := bigRepo(b, 10000)
	e := newEngine(b, ws.Root)
	ctx := context.Background()
	for name, target := range map[string]string{"sha": "git:" + old + ":docs/guide.md:3", "HEAD~9900": "git:HEAD~9900:docs/guide.md:3"} {
		b.Run(name, func(b *testing.B) {
			res, err := e.Retrieve(ctx, retrieve.Request{Target: target})
			if err != nil || res.Retrieved.Data != "Revision 100.\n" {
				b.Fatalf("%v %v", err, res.Retrieved.Data)
			}
			for b.Loop() {
				if _, err := e.Retrieve(ctx, retrieve.Request{Target: target}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
