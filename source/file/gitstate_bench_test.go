package file

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	gitindex "github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/testws"
)

// benchTrees makes the folders the benchmarks read: a plain folder, a
// committed repository (objects packed, as in a clone), one with no
// commit yet, and one with the file modified.
func benchTrees(b *testing.B) map[string]string {
	body := strings.Repeat("A line of notes about the project.\n", 117) // 4 KB
	dirs := map[string]string{}
	for _, kind := range []string{"plain", "clean", "unborn", "dirty"} {
		w := testws.New(b)
		w.Write("notes.md", body)
		for i := range 200 {
			w.Write(filepath.Join("src", "f"+strings.Repeat("x", i%7), "file"+string(rune('a'+i%26))+".txt"), body[:100])
		}
		switch kind {
		case "clean", "dirty":
			w.InitGit()
			w.Git("gc", "-q")
		case "unborn":
			w.Git("init", "-q", "-b", "main")
			w.Git("add", "-A")
		}
		if kind == "dirty" {
			w.Write("notes.md", body+"one more line\n")
		}
		dirs[kind] = w.Root
	}
	return dirs
}

// BenchmarkGitState is the git state of one file as a CLI call learns it:
// nothing cached (a new gitInfo per call). "process" is the old path, one
// `git status` per file.
func BenchmarkGitState(b *testing.B) {
	dirs := benchTrees(b)
	run := func(kind string, processOnly bool, want gitState) func(*testing.B) {
		return func(b *testing.B) {
			defer cpuPerOp(b)()
			for b.Loop() {
				g := newGitInfo(dirs[kind])
				g.processOnly = processOnly
				f, err := os.Open(filepath.Join(dirs[kind], "notes.md"))
				if err != nil {
					b.Fatal(err)
				}
				fi, err := f.Stat()
				if err != nil {
					b.Fatal(err)
				}
				st := g.status(context.Background(), "notes.md", openedFile{fi: fi, content: f})
				f.Close()
				if st.state != want {
					b.Fatalf("state = %s, want %s", stateNames[st.state], stateNames[want])
				}
			}
		}
	}
	b.Run("plain", run("plain", false, gitNone))
	b.Run("clean/inproc", run("clean", false, gitClean))
	b.Run("clean/process", run("clean", true, gitClean))
	b.Run("unborn/inproc", run("unborn", false, gitNoHead))
	b.Run("unborn/process", run("unborn", true, gitNoHead))
	b.Run("dirty/inproc", run("dirty", false, gitDirty))
}

// BenchmarkFetchSmall reads a 4 KB file through the source, in each git
// state and in a plain folder: "cli" opens a new source per read (as a CLI
// call does), "serve" reuses one (as serve does, where the state is cached
// until the file, the index or HEAD change).
func BenchmarkFetchSmall(b *testing.B) {
	dirs := benchTrees(b)
	fetch := func(b *testing.B, s *Source) {
		doc, err := s.Fetch(context.Background(), &retrieve.Request{Target: "notes.md"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, doc.Body); err != nil {
			b.Fatal(err)
		}
		doc.Body.Close()
	}
	open := func(b *testing.B, dir string) *Source {
		s, err := New(Options{Root: dir, HashCache: filepath.Join(b.TempDir(), "hashes")})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	for _, kind := range []string{"plain", "clean", "unborn", "dirty"} {
		b.Run("cli/"+kind, func(b *testing.B) {
			defer cpuPerOp(b)()
			for b.Loop() {
				s := open(b, dirs[kind])
				fetch(b, s)
				s.Close()
			}
		})
		b.Run("serve/"+kind, func(b *testing.B) {
			s := open(b, dirs[kind])
			defer s.Close()
			defer cpuPerOp(b)()
			for b.Loop() {
				fetch(b, s)
			}
		})
	}
}

// cpuPerOp reports the CPU time (user+sys) per operation of the process
// and of the git processes it waited for, beside the wall time, which a
// loaded machine makes noisy.
func cpuPerOp(b *testing.B) func() {
	cpu := func() time.Duration {
		var d time.Duration
		for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
			var ru syscall.Rusage
			if err := syscall.Getrusage(who, &ru); err != nil {
				b.Fatal(err)
			}
			d += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
		return d
	}
	start := cpu()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

// BenchmarkIndexLookup finds one path in a 10,000-entry index: this
// reader (names compared in place) against decoding the index with
// go-git's decoder, what opening the repository with go-git costs first.
func BenchmarkIndexLookup(b *testing.B) {
	w := newRepoTB(b)
	for i := range 100 {
		write(b, filepath.Join(w.Root, "dir"+strconv.Itoa(i), "keep.txt"), "x\n")
	}
	w.Git("add", "-A")
	id := w.Git("rev-parse", ":dir0/keep.txt")
	var sb strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&sb, "100644 %s\tdir%d/file%05d.txt\n", id, i%100, i)
	}
	cmd := exec.Command("git", "-C", w.Root, "update-index", "--add", "--index-info")
	cmd.Stdin = strings.NewReader(sb.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("update-index: %v %s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(w.Root, ".git", "index"))
	if err != nil {
		b.Fatal(err)
	}
	const want = "dir50/file05050.txt"
	b.Run("inproc", func(b *testing.B) {
		for b.Loop() {
			if res, err := lookupIndex(data, want); err != nil || !res.found {
				b.Fatalf("lookupIndex = %v, %v", res.found, err)
			}
		}
	})
	b.Run("go-git", func(b *testing.B) {
		for b.Loop() {
			var idx gitindex.Index
			if err := gitindex.NewDecoder(bytes.NewReader(data)).Decode(&idx); err != nil {
				b.Fatal(err)
			}
			if _, err := idx.Entry(want); err != nil {
				b.Fatal(err)
			}
		}
	})
}
