package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shellWords splits a command line as sh would for the simple quoting the
// docs use ('…', "…"), and drops a trailing # comment.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '#' && !in:
			return words
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// TestDocExamples runs the `retrieve get` examples of README.md and docs/
// whose target is a file of this repository (the README's own fresh-clone
// examples among them), against the repository, without recording: each
// must succeed. Examples on files, URLs or databases the repository does
// not have are listed in the log, not run.
func TestDocExamples(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	ran := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "retrieve get ") {
				continue
			}
			args := shellWords(line)[1:]
			for i, a := range args {
				if a == ">" || a == "|" || a == "&&" || a == ";" || a == "\\" {
					args = args[:i] // the rest is the shell's: a redirection, a pipe, a next command
					break
				}
			}
			target := args[1]
			if p, _, _ := strings.Cut(target, ":"); strings.Contains(target, "://") || !fileExists(filepath.Join(root, p)) {
				t.Logf("not run (no such file here): %s", line)
				continue
			}
			_, errOut, code := runCLI(t, append([]string{"--root", root}, append(args, "--no-record")...)...)
			if code != ExitOK {
				t.Errorf("%s: %s\n  %s", filepath.Base(f), line, errOut)
			}
			ran++
		}
	}
	if ran < 5 {
		t.Fatalf("only %d examples ran", ran)
	}
	t.Logf("%d examples ran", ran)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
