package file

import (
	"bytes"
	"encoding/hex"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// indexRepo makes a repository whose index holds paths of every shape:
// nested, sharing prefixes (v4 compresses them), one longer than the
// 12-bit name length field, an executable, a symbolic link.
func indexRepo(t testing.TB) (dir string, paths []string) {
	w := newRepoTB(t)
	long := strings.Repeat(strings.Repeat("d", 200)+"/", 21) + "long.txt" // > 0xFFF bytes
	paths = []string{"a.txt", "a/b.txt", "a/bb/c.txt", "ab.txt", "z/y/x/w.txt", "run.sh"}
	for _, p := range paths {
		write(t, filepath.Join(w.Root, filepath.FromSlash(p)), "content of "+filepath.Base(p)+"\n")
	}
	w.Git("add", "-A")
	w.Git("update-index", "--chmod=+x", "run.sh")
	// Too long for the file system: an index entry only.
	w.Git("update-index", "--add", "--cacheinfo", "100644,"+w.Git("rev-parse", ":a.txt")+","+long)
	paths = append(paths, long)
	return w.Root, paths
}

// lookupIndex finds every entry `git ls-files -s` lists, with the same
// mode and id, in index versions 2, 3 (an extended flag set) and 4.
func TestLookupIndexMatchesLsFiles(t *testing.T) {
	dir, paths := indexRepo(t)
	for _, v := range []string{"2", "3", "4"} {
		testwsGit(t, dir, "update-index", "--index-version", v)
		if v == "3" {
			testwsGit(t, dir, "update-index", "--skip-worktree", "a.txt")
		}
		data := mustRead(t, filepath.Join(dir, ".git", "index"))
		for _, line := range strings.Split(testwsGit(t, dir, "ls-files", "-s"), "\n") {
			meta, path, _ := strings.Cut(line, "\t")
			f := strings.Fields(meta)
			res, err := lookupIndex(data, path)
			if err != nil {
				t.Fatalf("v%s: lookupIndex(%q): %v", v, path, err)
			}
			if !res.found {
				t.Errorf("v%s: %q not found", v, path)
				continue
			}
			if got := strconv.FormatUint(uint64(res.entry.mode), 8); got != f[0] {
				t.Errorf("v%s: %q mode = %s, git says %s", v, path, got, f[0])
			}
			if got := hex.EncodeToString(res.entry.sha[:]); got != f[1] {
				t.Errorf("v%s: %q id = %s, git says %s", v, path, got, f[1])
			}
			if want := v != "2" && path == "a.txt"; res.entry.skipWorktree != want {
				t.Errorf("v%s: %q skip-worktree = %v, want %v", v, path, res.entry.skipWorktree, want)
			}
		}
		for _, missing := range []string{"a", "a/b", "b.txt", "a/bb", paths[5] + "x"} {
			if res, err := lookupIndex(data, missing); err != nil || res.found {
				t.Errorf("v%s: lookupIndex(%q) = found %v, %v; want not found", v, missing, res.found, err)
			}
		}
	}
}

func testwsGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// FuzzLookupIndex: any bytes give an answer or an error, never a panic,
// and a found entry's name is the one asked for.
func FuzzLookupIndex(f *testing.F) {
	dir, _ := indexRepo(f)
	for _, v := range []string{"2", "3", "4"} {
		testwsGit(f, dir, "update-index", "--index-version", v)
		f.Add(mustRead(f, filepath.Join(dir, ".git", "index")), "a/bb/c.txt")
	}
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"+strings.Repeat("\x00", 20)), "a")
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		res, err := lookupIndex(data, path)
		if err != nil && res.found {
			t.Errorf("error %v with an entry found", err)
		}
	})
}

// FuzzTreeEntry: any bytes give an answer or an error, never a panic.
func FuzzTreeEntry(f *testing.F) {
	dir, _ := indexRepo(f)
	testwsGit(f, dir, "-c", "user.name=t", "-c", "user.email=t@e.invalid", "commit", "-qm", "one")
	tree, err := exec.Command("git", "-C", dir, "cat-file", "tree", "HEAD^{tree}").Output()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tree, "a.txt")
	f.Add(tree, "a")
	commit, err := exec.Command("git", "-C", dir, "cat-file", "commit", "HEAD").Output()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(commit, "tree")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		if _, _, found, err := treeEntry(data, name); found && err != nil {
			t.Errorf("found with error %v", err)
		}
		if id, ok := commitTree(data); ok && !bytes.HasPrefix(bytes.ToLower(data), []byte("tree "+id.String())) {
			t.Errorf("commitTree = %s, not the first line of %q", id, data)
		}
	})
}
