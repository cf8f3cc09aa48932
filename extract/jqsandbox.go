package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// JQChildArg is the first argument that makes a program that called
// JQChildMain run as a jq sandbox child.
const JQChildArg = "__retrieve-jq-sandbox"

// DefaultJQSlotWait is how long a selection waits for a free child slot.
const DefaultJQSlotWait = 10 * time.Second

// jqWatchEnv tells a child that fd 3 is the read end of a pipe its parent
// holds open: EOF on it means the parent is gone, and the child exits.
const jqWatchEnv = "RETRIEVE_JQ_WATCH_FD3=1"

// DefaultJQMemory is the address space a jq evaluation may take on top of
// what its child process starts with and what its input needs.
const DefaultJQMemory = 256 << 20

// JQSandbox runs jq expressions in child processes that are bounded in
// memory by the kernel (RLIMIT_AS on Unix): a jq expression can build a
// huge value in one uninterruptible step ("a" * 1e9, setpath with a large
// index, tojson of a value that shares subtrees), which no deadline and no
// in-process check stops. The child is the program itself, started with
// JQChildArg; it must call JQChildMain first thing in main.
type JQSandbox struct {
	// Path is the executable to start (os.Executable()).
	Path string
	// Memory is the budget of one evaluation (DefaultJQMemory when 0);
	// four times the size of the input as JSON is added to it.
	Memory int64
	// Parallel bounds the children running at once (runtime.NumCPU()
	// when 0), so that the host's memory is bounded by Parallel × budget.
	Parallel int
	// Timeout bounds one child's run, from its start (SelectTimeout when
	// 0); the wait for a slot does not count.
	Timeout time.Duration
	// SlotWait bounds the wait for a slot (DefaultJQSlotWait when 0); past
	// it the call fails with ErrJQBusy without running.
	SlotWait time.Duration

	once sync.Once
	sem  chan struct{}
}

var jqSandbox atomic.Pointer[JQSandbox]

// SetJQSandbox makes every Select run in a child process of s; nil runs
// jq in-process again, bounded in time only.
func SetJQSandbox(s *JQSandbox) { jqSandbox.Store(s) }

// jqRequest is what the parent sends a child on stdin.
type jqRequest struct {
	Expr  string          `json:"expr"`
	Input json.RawMessage `json:"input"`
}

// jqReply is what a child writes on stdout.
type jqReply struct {
	Outputs []json.RawMessage `json:"outputs"`
	// Error is set when the expression failed; Kind says which sentinel
	// it wraps: "select", "too_large" or "timeout".
	Error string `json:"error,omitempty"`
	Kind  string `json:"kind,omitempty"`
}

func (s *JQSandbox) budget(input int) int64 {
	m := s.Memory
	if m <= 0 {
		m = DefaultJQMemory
	}
	return m + 4*int64(input)
}

// run evaluates expr over v in a child process.
func (s *JQSandbox) run(ctx context.Context, v any, expr string) (any, error) {
	s.once.Do(func() {
		n := s.Parallel
		if n <= 0 {
			n = runtime.NumCPU()
		}
		s.sem = make(chan struct{}, n)
	})
	wait := s.SlotWait
	if wait <= 0 {
		wait = DefaultJQSlotWait
	}
	slot := time.NewTimer(wait)
	select {
	case s.sem <- struct{}{}:
		slot.Stop()
		defer func() { <-s.sem }()
	case <-ctx.Done():
		slot.Stop()
		return nil, fmt.Errorf("%w: jq %q did not start in time: %v", ErrTimeout, expr, ctx.Err())
	case <-slot.C:
		return nil, fmt.Errorf("%w: jq %q waited %s for one of %d sandbox slots", ErrJQBusy, expr, wait, cap(s.sem))
	}
	limit := s.Timeout
	if limit <= 0 {
		limit = SelectTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	input, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: jq input: %v", ErrSelect, err)
	}
	req, err := json.Marshal(jqRequest{Expr: expr, Input: input})
	if err != nil {
		return nil, fmt.Errorf("%w: jq input: %v", ErrSelect, err)
	}
	input = nil
	budget := s.budget(len(req))
	cmd := exec.CommandContext(ctx, s.Path, JQChildArg, strconv.FormatInt(budget, 10))
	cmd.Stdin = bytes.NewReader(req)
	var stdout bytes.Buffer
	// The reply is bounded like the child: the parent never holds more.
	cmd.Stdout = &limitedWriter{w: &stdout, n: budget}
	var stderr bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &stderr, n: 64 << 10}
	cmd.Env = []string{"GOMAXPROCS=1", "GOTRACEBACK=none"}
	// The child dies with this process: the kernel's parent-death signal
	// where there is one (Linux), and everywhere a pipe whose write end
	// only this process holds (the child exits on its EOF).
	var watchR *os.File
	if runtime.GOOS != "windows" { // no inherited descriptors there
		r, w, err := os.Pipe()
		if err == nil {
			watchR = r
			cmd.ExtraFiles = []*os.File{r}
			cmd.Env = append(cmd.Env, jqWatchEnv)
			defer w.Close()
		}
	}
	err = runDying(cmd, watchR)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%w: jq %q did not finish in time (%v)", ErrTimeout, expr, ctx.Err())
	}
	if err != nil {
		if errors.Is(err, errReplyTooLarge) || strings.Contains(stderr.String(), "out of memory") || strings.Contains(stderr.String(), "cannot allocate memory") || isSignalKill(err) {
			return nil, fmt.Errorf("%w: jq %q needs more than its memory budget of %d MiB", ErrJQMemory, expr, budget>>20)
		}
		return nil, fmt.Errorf("%w: jq sandbox %s: %v: %s", ErrSelect, s.Path, err, firstLine(stderr.String()))
	}
	var rep jqReply
	dec := json.NewDecoder(&stdout)
	dec.UseNumber()
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("%w: jq sandbox reply: %v", ErrSelect, err)
	}
	if rep.Error != "" {
		return nil, fmt.Errorf("%w: %s", kindErr(rep.Kind), rep.Error)
	}
	outs := make([]any, 0, len(rep.Outputs))
	for _, o := range rep.Outputs {
		d := json.NewDecoder(bytes.NewReader(o))
		d.UseNumber()
		var x any
		if err := d.Decode(&x); err != nil {
			return nil, fmt.Errorf("%w: jq sandbox reply: %v", ErrSelect, err)
		}
		outs = append(outs, normalize(x))
	}
	return collect(outs), nil
}

func kindErr(kind string) error {
	switch kind {
	case "too_large":
		return ErrTooLarge
	case "memory":
		return ErrJQMemory
	case "timeout":
		return ErrTimeout
	}
	return ErrSelect
}

func errKind(err error) string {
	switch {
	case errors.Is(err, ErrJQMemory):
		return "memory"
	case errors.Is(err, ErrTooLarge):
		return "too_large"
	case errors.Is(err, ErrTimeout):
		return "timeout"
	}
	return "select"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

var errReplyTooLarge = errors.New("jq reply larger than the budget")

type limitedWriter struct {
	w io.Writer
	n int64
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.n {
		return 0, errReplyTooLarge
	}
	l.n -= int64(len(p))
	return l.w.Write(p)
}

// JQChildMain runs a jq sandbox child when args (os.Args) ask for one and
// returns its exit code and true; otherwise it returns false at once. Call
// it first thing in main:
//
//	if code, ok := extract.JQChildMain(os.Args, os.Stdin, os.Stdout, os.Stderr); ok {
//		os.Exit(code)
//	}
//
// The child caps its own address space (setrlimit RLIMIT_AS on Unix) to
// what it started with plus the budget the parent passed, so a run that
// needs more dies with "out of memory" instead of growing.
func JQChildMain(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, bool) {
	if len(args) != 3 || args[1] != JQChildArg {
		return 0, false
	}
	budget, err := strconv.ParseInt(args[2], 10, 64)
	if err != nil || budget <= 0 {
		fmt.Fprintln(stderr, "jq sandbox: bad budget", args[2])
		return 2, true
	}
	if slices.Contains(os.Environ(), jqWatchEnv) {
		go watchParent(os.NewFile(3, "parent-watch"))
	}
	debug.SetMemoryLimit(budget / 2)
	if err := limitAddressSpace(budget); err != nil {
		fmt.Fprintln(stderr, "jq sandbox: cannot limit memory:", err)
		return 2, true
	}
	var req jqRequest
	if err := json.NewDecoder(stdin).Decode(&req); err != nil {
		fmt.Fprintln(stderr, "jq sandbox: bad request:", err)
		return 2, true
	}
	v, err := Parse(req.Input, "json")
	req.Input = nil
	var rep jqReply
	if err == nil {
		// The parent kills the child at its deadline; this one only
		// makes the child's own error say so when it comes first.
		var outs []any
		outs, err = evalJQ(context.Background(), v, req.Expr)
		for _, o := range outs {
			b, err := json.Marshal(o)
			if err != nil {
				rep = jqReply{Error: err.Error(), Kind: "select"}
				break
			}
			rep.Outputs = append(rep.Outputs, b)
		}
	}
	if err != nil {
		rep = jqReply{Error: strings.TrimPrefix(err.Error(), kindErr(errKind(err)).Error()+": "), Kind: errKind(err)}
	}
	if err := json.NewEncoder(stdout).Encode(rep); err != nil {
		fmt.Fprintln(stderr, "jq sandbox: write reply:", err)
		return 2, true
	}
	return 0, true
}

// currentAddressSpace reads the process's virtual size (Linux); 0 when it
// cannot be read.
func currentAddressSpace() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmSize:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n << 10
			}
		}
	}
	return 0
}

// runDying starts cmd so that it dies with this process, and waits for
// it. watchR, the child's end of the watch pipe, is closed here once the
// child holds it.
func runDying(cmd *exec.Cmd, watchR *os.File) error {
	unlock := dieWithParent(cmd)
	err := cmd.Start()
	if watchR != nil {
		watchR.Close()
	}
	if err != nil {
		unlock()
		return err
	}
	err = cmd.Wait()
	unlock()
	return err
}

// watchParent exits the child when its parent's end of the watch pipe
// closes: the parent died (killed with SIGKILL, it could not kill the
// child first).
func watchParent(f *os.File) {
	if f == nil {
		return
	}
	var b [1]byte
	for {
		if _, err := f.Read(b[:]); err != nil {
			os.Exit(3)
		}
	}
}
