package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxBatchBlob is the largest blob read through the batch process into
// memory; larger blobs stream from their own git cat-file.
const maxBatchBlob = 32 << 20

// batch is one long-running `git cat-file --batch` of a repository: it
// answers object lookups without starting a process per retrieval. It is
// used for objects named by full commit ids, which never change.
type batch struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	err error // set when the process is unusable
}

var errMissing = errors.New("object missing")

func (s *Source) batchOf(rp repo) *batch {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.batches[rp.top]
	if !ok || b.broken() {
		b = &batch{}
		s.batches[rp.top] = b
		b.start(s, rp.top)
	}
	return b
}

func (b *batch) start(s *Source, dir string) {
	cmd := s.command(context.Background(), dir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.err = err
		return
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.err = err
		return
	}
	if err := cmd.Start(); err != nil {
		b.err = err
		return
	}
	b.cmd, b.in, b.out = cmd, in, bufio.NewReaderSize(out, 64<<10)
}

func (b *batch) broken() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err != nil
}

func (b *batch) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd != nil && b.err == nil {
		b.err = errors.New("closed")
		b.in.Close()
		done := make(chan struct{})
		go func() { _ = b.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			_ = b.cmd.Process.Kill()
		}
	}
}

// object returns the type and content of the object named by spec
// (<sha>, <sha>:<path>). Blobs over maxBatchBlob return their size and no
// content.
func (b *batch) object(spec string) (typ string, size int64, content []byte, err error) {
	if strings.ContainsAny(spec, "\n\x00") {
		return "", 0, nil, fmt.Errorf("spec %q cannot go through the batch", spec)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return "", 0, nil, b.err
	}
	fail := func(err error) (string, int64, []byte, error) {
		b.err = err // the stream is out of step: never reuse it
		return "", 0, nil, err
	}
	// Ask for the header only first (batch-check semantics are not
	// available on a --batch process, so large objects are skipped by
	// reading their content away).
	if _, err := io.WriteString(b.in, spec+"\n"); err != nil {
		return fail(err)
	}
	header, err := b.out.ReadString('\n')
	if err != nil {
		return fail(err)
	}
	header = strings.TrimSuffix(header, "\n")
	if strings.HasSuffix(header, " missing") || strings.HasSuffix(header, " ambiguous") {
		return "", 0, nil, errMissing
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		return fail(fmt.Errorf("git cat-file --batch: unexpected header %q", header))
	}
	size, err = strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return fail(fmt.Errorf("git cat-file --batch: bad size in %q", header))
	}
	if size > maxBatchBlob {
		if _, err := b.out.Discard(int(size) + 1); err != nil {
			return fail(err)
		}
		return f[1], size, nil, nil
	}
	content = make([]byte, size+1)
	if _, err := io.ReadFull(b.out, content); err != nil {
		return fail(err)
	}
	return f[1], size, content[:size], nil
}

// commitTime parses the committer time of a raw commit object.
func commitTime(raw []byte) (time.Time, bool) {
	for _, line := range bytes.Split(raw, []byte{'\n'}) {
		if len(line) == 0 {
			break // end of the headers
		}
		if rest, ok := bytes.CutPrefix(line, []byte("committer ")); ok {
			f := strings.Fields(string(rest))
			if len(f) < 2 {
				return time.Time{}, false
			}
			secs, err := strconv.ParseInt(f[len(f)-2], 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			return time.Unix(secs, 0).UTC(), true
		}
	}
	return time.Time{}, false
}

// treeEntry finds name in a raw tree object: mode, type and object id.
// idLen is 20 for SHA-1 repositories, 32 for SHA-256 ones.
func treeEntry(raw []byte, name string, idLen int) (*object, bool) {
	for len(raw) > 0 {
		sp := bytes.IndexByte(raw, ' ')
		nul := bytes.IndexByte(raw, 0)
		if sp < 0 || nul < sp {
			return nil, false
		}
		mode, ename := string(raw[:sp]), string(raw[sp+1:nul])
		rest := raw[nul+1:]
		if len(rest) < idLen {
			return nil, false
		}
		if ename == name {
			o := &object{mode: mode, sha: fmt.Sprintf("%x", rest[:idLen]), size: -1}
			switch mode {
			case "40000", "040000":
				o.typ = "tree"
			case "160000":
				o.typ = "commit"
			default:
				o.typ = "blob"
			}
			return o, true
		}
		raw = rest[idLen:]
	}
	return nil, false
}

// fastFetch answers a full commit id through the repository's batch
// process: no git process starts per retrieval. It reports false when the
// slow path must answer (anything missing or unusual, which the slow path
// turns into a precise error).
func (s *Source) fastFetch(rp repo, sha, inRepo string) (commit, *object, []byte, bool) {
	b := s.batchOf(rp)
	typ, _, raw, err := b.object(sha)
	if err != nil || typ != "commit" {
		return commit{}, nil, nil, false
	}
	ct, ok := commitTime(raw)
	if !ok {
		return commit{}, nil, nil, false
	}
	c := commit{sha: sha, time: ct}
	dir, base := path.Split(inRepo)
	spec := sha + "^{tree}"
	if dir != "" {
		spec = sha + ":" + strings.TrimSuffix(dir, "/")
	}
	typ, _, raw, err = b.object(spec)
	if err != nil || typ != "tree" || raw == nil {
		return commit{}, nil, nil, false
	}
	obj, ok := treeEntry(raw, base, len(sha)/2)
	if !ok || obj.typ != "blob" || obj.mode == "120000" {
		return commit{}, nil, nil, false
	}
	typ, size, content, err := b.object(obj.sha)
	if err != nil || typ != "blob" || content == nil {
		return commit{}, nil, nil, false
	}
	obj.size = size
	return c, obj, content, true
}
