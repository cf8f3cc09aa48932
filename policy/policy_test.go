package policy_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// Finding 5: user rules add to the built-in deny list and never remove
// from it.
func TestSecurityDenyListIsAFloor(t *testing.T) {
	d := policy.CompileDeny([]byte("!.env\n!.env*\n!.ssh/\n!*.key\n!id_rsa*\n!.git/\n*.draft\n!keep.draft\n"), []string{"!*.pem", "!secrets.*"})
	for _, p := range []string{".env", ".env.local", ".ssh/config", "tls.key", "id_rsa", ".git/config", "cert.pem", "secrets.yaml", "x.draft"} {
		if !d.Denied(p) {
			t.Errorf("%s is re-allowed by a user rule", p)
		}
	}
	// A user negation still undoes the user's own pattern.
	if d.Denied("keep.draft") {
		t.Error("keep.draft: a user's negation of a user's pattern must hold")
	}
}

// Finding 8: the deny list matches in any letter case.
func TestSecurityDenyListCase(t *testing.T) {
	d := policy.CompileDeny([]byte("Private/\n"), []string{"*.SECRET"})
	for _, p := range []string{".ENV", ".Env.Local", "ID_RSA", "keys/Id_Ed25519", "SERVER.KEY", "Cert.PEM", ".SSH/config", ".GIT/config",
		"CREDENTIALS.json", "private/a.md", "PRIVATE/a.md", "x.secret", ".RETRIEVE/RETRIEVE.DB"} {
		if !d.Denied(p) {
			t.Errorf("%s is not denied", p)
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, bad := range []string{"a\x00b", strings.Repeat("x", 256), "d/" + strings.Repeat("x", 256) + "/e", strings.Repeat("d/", 2049)} {
		if err := policy.CheckName(bad); !errors.Is(err, policy.ErrBadName) {
			t.Errorf("CheckName(%.40q) = %v", bad, err)
		}
	}
	for _, ok := range []string{"a", strings.Repeat("x", 255), "a/b/c.md", ""} {
		if err := policy.CheckName(ok); err != nil {
			t.Errorf("CheckName(%.40q) = %v", ok, err)
		}
	}
}

func FuzzDenied(f *testing.F) {
	d := policy.CompileDeny([]byte("private/\n!.env\n*.secret\n"), []string{"drafts/*.md"})
	for _, s := range []string{".env", "a/.ENV", ".ssh/x", "x.Key", "private/a", "drafts/x.md", "", "/", "../.env", "a//b", "\x00", "ǅ.env"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got := d.Denied(p)
		// Case never matters, and a path under a denied folder is denied.
		if up := strings.ToUpper(p); strings.EqualFold(up, p) && d.Denied(up) != got {
			t.Fatalf("Denied(%q) = %v but Denied(%q) = %v", p, got, up, !got)
		}
		if got && !strings.Contains(p, "..") && d.Denied(p+"/sub") != true {
			t.Fatalf("Denied(%q) but not its child", p)
		}
		_ = policy.CheckName(p)
	})
}

// TestDenyNegation: a negation re-includes what an earlier pattern of the
// same list denied, as in git (issue 33: `deny: ["keep/*", "!keep/b.md"]`
// refused keep/b.md); it cannot re-include a file under a denied directory
// (git does not look inside one) nor anything the built-in list denies.
func TestDenyNegation(t *testing.T) {
	d := policy.CompileDeny([]byte("secrets/\n!secrets/ok.md\n*.draft\n!public.draft\n"), []string{"keep/*", "!keep/b.md", "!.env", "!id_rsa"})
	for rel, want := range map[string]bool{
		"keep/a.md":      true,
		"keep/b.md":      false,
		"keep/B.md":      false, // any letter case
		"keep/sub/b.md":  true,  // keep/sub is denied by keep/*
		"secrets/x.md":   true,
		"secrets/ok.md":  true, // under a denied directory
		"notes.draft":    true,
		"public.draft":   false,
		"a/public.draft": false,
		".env":           true, // the built-in list is a floor
		"id_rsa":         true,
		"readme.md":      false,
	} {
		if got := d.Denied(rel); got != want {
			t.Errorf("Denied(%q) = %v, want %v", rel, got, want)
		}
	}
}
