package file_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/workspace"
)

func listDir(t *testing.T, root, rel string) []string {
	t.Helper()
	ws, err := workspace.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	got, err := file.ListDir(context.Background(), ws, rel)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestListDirWalksOutsideGit(t *testing.T) {
	ws := testws.New(t)
	ws.Write("src/b.go", "package b\n")
	ws.Write("src/a/a.py", "x = 1\n")
	ws.Write("src/.env", "TOKEN=x\n")
	ws.Write("src/node_modules/m/index.js", "1\n")
	ws.Write(".retrieve/state", "x\n")
	ws.Write("other/c.go", "package c\n")
	want := []string{"src/a/a.py", "src/b.go"}
	if got := listDir(t, ws.Root, "src"); !reflect.DeepEqual(got, want) {
		t.Fatalf("ListDir(src) = %q, want %q", got, want)
	}
	if got := listDir(t, ws.Root, "."); !reflect.DeepEqual(got, []string{"other/c.go", "src/a/a.py", "src/b.go"}) {
		t.Fatalf("ListDir(.) = %q", got)
	}
}

func TestListDirFollowsGitignore(t *testing.T) {
	ws := testws.New(t)
	ws.Write(".gitignore", "build/\n")
	ws.Write("main.go", "package main\n")
	ws.Write("build/out.go", "package out\n")
	ws.Write(".env", "TOKEN=x\n")
	ws.InitGit()
	ws.Write("new.go", "package main\n") // untracked, not ignored
	want := []string{".gitignore", "main.go", "new.go"}
	if got := listDir(t, ws.Root, "."); !reflect.DeepEqual(got, want) {
		t.Fatalf("ListDir = %q, want %q", got, want)
	}
}
