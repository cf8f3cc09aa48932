package extract_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/extract"
)

// parentEnv makes the test binary a parent that runs an endless selection
// in a sandbox child and waits (TestSecurityJQChildDiesWithParent kills it).
const parentEnv = "RETRIEVE_TEST_JQ_PARENT"

func init() {
	if os.Getenv(parentEnv) == "" {
		return
	}
	extract.SetJQSandbox(&extract.JQSandbox{Path: os.Args[0], Timeout: time.Hour})
	fmt.Println("ready")
	_, _ = extract.Select(context.Background(), nil, "def f: f; f")
	os.Exit(0)
}

// childrenOf lists the processes whose parent is pid (Linux /proc).
func childrenOf(t *testing.T, pid int) []int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces.
		rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
		f := strings.Fields(rest)
		if len(f) > 1 && f[1] == strconv.Itoa(pid) && f[0] != "Z" {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Dir(p), "/proc/"), "/"))
			out = append(out, n)
		}
	}
	return out
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
	return !strings.HasPrefix(rest, "Z")
}

// TestSecurityJQChildDiesWithParent kills a parent with SIGKILL while its
// jq child loops: the child is gone within seconds. Before, it spun at
// 100% CPU for minutes.
func TestSecurityJQChildDiesWithParent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc to find the child")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), parentEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil {
		t.Fatal(err)
	}
	var kids []int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && len(kids) == 0; time.Sleep(20 * time.Millisecond) {
		kids = childrenOf(t, cmd.Process.Pid)
	}
	if len(kids) == 0 {
		t.Fatal("the parent started no jq child")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(kids[0]) {
			return
		}
	}
	_ = syscall.Kill(kids[0], syscall.SIGKILL)
	t.Fatalf("the jq child %d outlived its SIGKILLed parent by 5 s", kids[0])
}

// TestSecurityJQSlotWait: with one slot busy with a loop, a benign
// selection waits for the slot and then runs with its whole time limit
// (the wait does not count); a wait longer than SlotWait is ErrJQBusy,
// not ErrTimeout. Before, a benign .a behind three loops was a TIMEOUT.
func TestSecurityJQSlotWait(t *testing.T) {
	doc := map[string]any{"a": 1.0}
	t.Run("OK", func(t *testing.T) {
		sandboxed(t, &extract.JQSandbox{Parallel: 1, Timeout: 1500 * time.Millisecond, SlotWait: 10 * time.Second})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = extract.Select(context.Background(), nil, "def f: f; f")
		}()
		time.Sleep(300 * time.Millisecond) // the loop holds the slot
		start := time.Now()
		v, err := extract.Select(context.Background(), doc, ".a")
		wg.Wait()
		if err != nil || fmt.Sprint(v) != "1" {
			t.Fatalf("Select(.a) after waiting %s = %v, %v; want 1", time.Since(start), v, err)
		}
	})
	t.Run("ErrBusy", func(t *testing.T) {
		sandboxed(t, &extract.JQSandbox{Parallel: 1, Timeout: 3 * time.Second, SlotWait: 200 * time.Millisecond})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = extract.Select(context.Background(), nil, "def f: f; f")
		}()
		time.Sleep(300 * time.Millisecond)
		_, err := extract.Select(context.Background(), doc, ".a")
		wg.Wait()
		if !errors.Is(err, extract.ErrJQBusy) || errors.Is(err, extract.ErrTimeout) {
			t.Fatalf("got %v, want ErrJQBusy", err)
		}
	})
}
