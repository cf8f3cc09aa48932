package extract_test

import (
	"context"
	"errors"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/retrieve-dev/retrieve/extract"
)

// TestMain lets the test binary serve as its own jq sandbox child.
func TestMain(m *testing.M) {
	if code, ok := extract.JQChildMain(os.Args, os.Stdin, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// sandboxed runs f with every Select in a child of the test binary.
func sandboxed(t testing.TB, s *extract.JQSandbox) {
	t.Helper()
	if s == nil {
		s = &extract.JQSandbox{}
	}
	s.Path = os.Args[0]
	extract.SetJQSandbox(s)
	t.Cleanup(func() { extract.SetJQSandbox(nil) })
}

// jqBombs build huge values in steps no deadline interrupts.
var jqBombs = []string{
	`"a" * 1e9`,             // one 1 GB string
	`[] | .[536870000] = 1`, // one 8 GB array
	`reduce range(40) as $i ([1]; [., .]) | tojson`, // a small DAG, an exabyte of JSON
	`reduce range(31) as $i ("a"; . + .)`,           // doubling
}

// TestSecurityJQMemoryBomb: in the sandbox every bomb ends with
// ErrJQMemory (TOO_LARGE), and this process allocates almost nothing
// meanwhile: the memory is the child's, and the kernel caps it.
func TestSecurityJQMemoryBomb(t *testing.T) {
	sandboxed(t, &extract.JQSandbox{Memory: 128 << 20})
	doc := map[string]any{"a": []any{1, 2, 3}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, expr := range jqBombs {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := extract.Select(ctx, doc, expr)
		cancel()
		if !errors.Is(err, extract.ErrJQMemory) {
			t.Errorf("Select(%q) = %v, want ErrJQMemory", expr, err)
		}
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("the parent allocated %d MiB while the bombs ran, want < 16 MiB", grew>>20)
	}
	if after.Sys > 256<<20 {
		t.Errorf("the parent holds %d MiB from the OS", after.Sys>>20)
	}
}

// TestSecurityJQTimeout: a loop that allocates nothing is killed at the
// deadline, with ErrTimeout.
func TestSecurityJQTimeout(t *testing.T) {
	sandboxed(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := extract.Select(ctx, nil, "def f: f; f"); !errors.Is(err, extract.ErrTimeout) {
		t.Fatalf("got %v, want ErrTimeout", err)
	}
}

// TestJQSandboxSameAnswers: the sandbox answers what in-process jq does,
// errors included.
func TestJQSandboxSameAnswers(t *testing.T) {
	doc, err := extract.Parse([]byte(`{"a":[1,2.5,"x",true,null],"big":12345678901234567,"o":{"k":[{"n":1},{"n":2}]},"f":1.5e300}`), "json")
	if err != nil {
		t.Fatal(err)
	}
	exprs := []string{".", ".a", ".a[]", ".a[1]", ".big", ".f", ".o.k[].n", "[.o.k[].n]", "empty", "null", `.missing`, `error("boom")`, ".a.b", `"x" * 3`, "[range(5)]", "$ENV | length", "env | length", `halt`, ".[", "input"}
	ctx := context.Background()
	type answer struct {
		V   any
		Err string
	}
	run := func(expr string) answer {
		v, err := extract.Select(ctx, doc, expr)
		a := answer{V: v}
		switch {
		case errors.Is(err, extract.ErrSelect):
			a.Err = "select"
		case err != nil:
			a.Err = err.Error()
		}
		return a
	}
	want := map[string]answer{}
	for _, e := range exprs {
		want[e] = run(e)
	}
	sandboxed(t, nil)
	for _, e := range exprs {
		if diff := cmp.Diff(want[e], run(e)); diff != "" {
			t.Errorf("Select(%q) in the sandbox (-in-process +sandbox):\n%s", e, diff)
		}
	}
}

// BenchmarkSelect compares a small jq selection in-process and in the
// sandbox (one child process per call).
func BenchmarkSelect(b *testing.B) {
	doc, _ := extract.Parse([]byte(`{"items":[{"name":"a","n":1},{"name":"b","n":2}]}`), "json")
	for _, mode := range []string{"InProcess", "Sandbox"} {
		b.Run(mode, func(b *testing.B) {
			if mode == "Sandbox" {
				sandboxed(b, nil)
			}
			for b.Loop() {
				if _, err := extract.Select(context.Background(), doc, ".items[].name"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
