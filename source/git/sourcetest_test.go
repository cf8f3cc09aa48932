package git_test

import (
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/source/git"
	"github.com/retrieve-dev/retrieve/source/sourcetest"
)

func TestContract(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
		ws := sourcetest.Workspace(t, "git-SECRET-1")
		sha := ws.InitGit()
		fs, err := file.New(file.Options{Root: ws.Root})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fs.Close() })
		gs, err := git.New(git.Options{Root: ws.Root, Deny: fs.Deny()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { gs.Close() })
		return sourcetest.Fixture{
			Source: gs, Others: []retrieve.Source{fs},
			Targets: []string{"git:" + sha + ":README.md", "git:HEAD:docs/a.md:2-3"},
			Missing: "git:HEAD:docs/missing.md", MissingCode: retrieve.CodeVersionNotFound,
			Secret: "git-SECRET-1", SecretTargets: []string{"git:HEAD:.env", "git:" + sha + ":.env:1"},
		}
	})
}
