package policy_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/retrieve-dev/retrieve/policy"
)

func TestDeny(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, policy.IgnoreFile), []byte("# comment\nprivate/\n*.secret\n!keep.secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := policy.NewDeny(root, []string{"drafts/*.md"})
	if err != nil {
		t.Fatal(err)
	}
	denied := []string{".env", ".env.local", "config/.env.production", "certs/server.pem", "tls.key", "home/.ssh/id_rsa", ".ssh/config",
		".aws/credentials", ".netrc", ".git-credentials", "credentials.json", "app/secrets.yaml", ".git/config", ".git/objects/ab/cd",
		"private/notes.md", "a.secret", "drafts/x.md", ".retrieve/retrieve.db", ".retrieve/retrieve.db-wal"}
	for _, p := range denied {
		if !d.Denied(p) {
			t.Errorf("%s is not denied", p)
		}
	}
	allowed := []string{"README.md", "src/env.go", "docs/keys.md", "environment.md", "keep.secret", "drafts/sub/x.txt", ".retrieve/config.yaml", ".gitignore", "git/config"}
	for _, p := range allowed {
		if d.Denied(p) {
			t.Errorf("%s is denied", p)
		}
	}
}

func TestRel(t *testing.T) {
	root := t.TempDir()
	for _, tt := range []struct{ in, want string }{{"a/b.md", "a/b.md"}, {"./a/../b.md", "b.md"}, {filepath.Join(root, "c.md"), "c.md"}} {
		got, err := policy.Rel(root, tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Rel(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"../x", "a/../../x", "/etc/passwd", ""} {
		if _, err := policy.Rel(root, bad); !errors.Is(err, policy.ErrOutsideRoot) {
			t.Errorf("Rel(%q) = %v, want ErrOutsideRoot", bad, err)
		}
	}
}
