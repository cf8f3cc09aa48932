package code

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustParse(t testing.TB, lang, file string) *Outline {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	o, err := Parse(lang, src)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func spans(syms []Symbol) []string {
	out := []string{}
	for _, s := range syms {
		out = append(out, fmt.Sprintf("%s %d-%d", s.Path(), s.StartLine, s.EndLine))
	}
	return out
}

func TestSelect(t *testing.T) {
	o := mustParse(t, "go", "sample.go")
	for _, tc := range []struct {
		sel  []string
		want []string
	}{
		{[]string{"struct"}, []string{"Store 16-21"}},
		{[]string{"Store.Put"}, []string{"Store.Put 42-49"}},
		{[]string{"Put"}, []string{"Store.Put 42-49"}},
		{[]string{"Store::Len"}, []string{"Store.Len 51-51"}},
		{[]string{"Store#Len"}, []string{"Store.Len 51-51"}},
		{[]string{"*.Len", "helper"}, []string{"Store.Len 51-51", "helper 53-53"}},
		{[]string{"Err*"}, []string{"ErrFull 11-12", "ErrGone 13-13"}},
		{[]string{"Saver", "Save"}, []string{"Saver 23-28"}}, // the method is inside the interface
		{[]string{"const", "var"}, []string{"MaxItems 6-7", "ErrFull 11-12", "ErrGone 13-13"}},
		{[]string{"  Store.Put  "}, []string{"Store.Put 42-49"}},
	} {
		got, err := o.Select(tc.sel)
		if err != nil {
			t.Errorf("Select(%q): %v", tc.sel, err)
			continue
		}
		if diff := cmp.Diff(tc.want, spans(got)); diff != "" {
			t.Errorf("Select(%q) (-want +got):\n%s", tc.sel, diff)
		}
	}

	_, err := o.Select([]string{"NewStor"})
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrSymbolNotFound) {
		t.Fatalf("err = %v, want a NotFoundError", err)
	}
	if alts := nf.Alternatives(); len(alts) == 0 || alts[0] != "NewStore" {
		t.Errorf("alternatives = %q, want NewStore first", alts)
	}
	for _, bad := range []string{"", "   ", "a..b", ".x", "x[", strings.Repeat("a", 2000)} {
		if _, err := o.Select([]string{bad}); !errors.Is(err, ErrBadSelector) {
			t.Errorf("Select(%q) = %v, want ErrBadSelector", bad, err)
		}
	}
}

func TestSelectAmbiguous(t *testing.T) {
	needsTreeSitter(t, "typescript")
	o := mustParse(t, "typescript", "user.ts")
	_, err := o.Select([]string{"save"})
	var ae *AmbiguousError
	if !errors.As(err, &ae) || !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("err = %v, want an AmbiguousError", err)
	}
	want := []string{
		"UserAttributes.save (method, lines 18-19)",
		"User.save (method, lines 34-34)",
		"UserRepository.save (method, lines 52-56)",
	}
	if diff := cmp.Diff(want, ae.Alternatives()); diff != "" {
		t.Errorf("alternatives (-want +got):\n%s", diff)
	}
	got, err := o.Select([]string{"*.save"})
	if err != nil || len(got) != 3 {
		t.Errorf("*.save = %v, %v; want the three methods", spans(got), err)
	}
}

// TestSyntaxErrors: a broken file of every language gives a best-effort
// outline, SyntaxErrors set, and never a panic.
func TestSyntaxErrors(t *testing.T) {
	cases := map[string]struct {
		src  string
		want string // a symbol that must still be found
	}{
		"go":         {"package p\n\nfunc Good() {}\n\nfunc Bad( {\n", "Good"},
		"typescript": {"class Good {\n  m() {}\n}\n\nclass Bad {\n  m( {\n", "Good"},
		"tsx":        {"function Good() { return <a/>; }\n\nfunction Bad() { return <a>; }\n", "Good"},
		"javascript": {"function Good() {}\n\nfunction Bad( {\n", "Good"},
		"python":     {"def good():\n    pass\n\ndef bad(:\n    pass\n", "good"},
		"java":       {"class Good {\n  void m() {}\n}\n\nclass Bad {\n  void m( {\n}\n", "Good"},
		"rust":       {"fn good() {}\n\nfn bad( {\n", "good"},
		"c":          {"int good(void) { return 0; }\n\nint bad( {\n", "good"},
		"cpp":        {"class Good {};\n\nint bad( {\n", "Good"},
		"csharp":     {"class Good { void M() {} }\n\nclass Bad { void M( { }\n", "Good"},
		"ruby":       {"def good\nend\n\ndef bad(\n", "good"},
	}
	for lang, tc := range cases {
		t.Run(lang, func(t *testing.T) {
			needsTreeSitter(t, lang)
			o, err := Parse(lang, []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if !o.SyntaxErrors {
				t.Error("SyntaxErrors not set")
			}
			found := false
			for _, s := range o.Symbols {
				found = found || s.Name == tc.want
				if s.StartLine < 1 || s.EndLine < s.StartLine {
					t.Errorf("bad span %+v", s)
				}
			}
			if !found {
				t.Errorf("%s not found in %v", tc.want, spans(o.Symbols))
			}
		})
	}
}

func TestGeneratedTenThousandLines(t *testing.T) {
	for _, tc := range []struct {
		lang string
		src  []byte
		sel  string
		span func(k, j int) (int, int)
	}{
		{"go", genGo(10000), "T%d.M%d", goMethodSpan},
		{"typescript", genTS(10000), "Class%d.method%d", tsMethodSpan},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			needsTreeSitter(t, tc.lang)
			if n := strings.Count(string(tc.src), "\n"); n < 10000 {
				t.Fatalf("generated %d lines", n)
			}
			o, err := Parse(tc.lang, tc.src)
			if err != nil || o.SyntaxErrors {
				t.Fatalf("Parse: %v, syntax errors %v", err, o.SyntaxErrors)
			}
			for _, kj := range [][2]int{{0, 0}, {7, 3}, {150, 9}} {
				got, err := o.Select([]string{fmt.Sprintf(tc.sel, kj[0], kj[1])})
				if err != nil {
					t.Fatal(err)
				}
				s, e := tc.span(kj[0], kj[1])
				if len(got) != 1 || got[0].StartLine != s || got[0].EndLine != e {
					t.Errorf("%v: got %v, want %d-%d", kj, spans(got), s, e)
				}
			}
		})
	}
}

// TestNoLeak runs 2,000 extractions and checks that the resident memory
// stays flat: the parsers are pooled, and every tree (C memory, which the
// Go heap does not see) is closed after its walk.
func TestNoLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	lang, file := "typescript", "user.ts"
	needsTreeSitter(t, lang)
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	run := func(n int) {
		for i := 0; i < n; i++ {
			o, err := Parse(lang, src)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := o.Select([]string{"class"}); err != nil && lang != "go" {
				t.Fatal(err)
			}
		}
	}
	run(30) // warm up pools and caches
	before, ok := rss()
	if !ok {
		t.Skip("no /proc/self/statm")
	}
	heapBefore := liveHeap()
	run(2000)
	after, _ := rss()
	heapAfter := liveHeap()
	// A leaked tree of user.ts (or parser) is tens of KiB of C memory:
	// 2,000 of them would be tens of MiB of resident memory, which allows
	// 16 MiB for the allocators' noise. The live Go heap, after a
	// collection, catches what the walker keeps: allow 2 MiB of caches.
	if grow := heapAfter - heapBefore; grow > 2<<20 {
		t.Errorf("the live heap grew by %d KiB over 2,000 extractions", grow>>10)
	}
	if grow := after - before; grow > 16<<20 {
		t.Errorf("resident memory grew by %d MiB over 2,000 extractions", grow>>20)
	}
}

// liveHeap is the bytes reachable on the Go heap after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

func rss() (int64, bool) {
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}

func FuzzParseSelector(f *testing.F) {
	for _, s := range []string{"class", "User.save", "User::save", "User#save", "Test*", "a..b", "[", "*.x", " > x", ""} {
		f.Add(s)
	}
	o := &Outline{Symbols: []Symbol{{Name: "save", Kind: KindMethod, Parent: "User", StartLine: 1, EndLine: 2}}}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseSelector(s)
		if err == nil && sel.Kind == "" && len(sel.Parts) == 0 {
			t.Fatalf("ParseSelector(%q) accepted an empty selector", s)
		}
		_, _ = o.Select([]string{s})
	})
}

func FuzzOutline(f *testing.F) {
	for _, name := range []string{"sample.go", "user.ts", "models.py", "lib.rs", "shapes.cpp"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(0), b)
		f.Add(uint8(len(name)), b)
	}
	f.Add(uint8(3), []byte("class {{{ def ( \x00 \xff"))
	f.Fuzz(func(t *testing.T, li uint8, src []byte) {
		lang := languages[int(li)%len(languages)]
		o, err := Parse(lang, src)
		if err != nil {
			if !errors.Is(err, ErrUnsupported) {
				t.Fatalf("Parse(%s): %v", lang, err)
			}
			return
		}
		lines := strings.Count(string(src), "\n") + 1
		for _, s := range o.Symbols {
			if s.StartLine < 1 || s.EndLine < s.StartLine || s.EndLine > lines {
				t.Fatalf("%s: bad span %+v of %d lines", lang, s, lines)
			}
		}
		_, _ = o.Select([]string{"class", "*"})
	})
}

func BenchmarkOutline(b *testing.B) {
	for _, tc := range []struct {
		lang string
		src  []byte
	}{
		{"go", genGo(10000)},
		{"typescript", genTS(10000)},
	} {
		b.Run(tc.lang, func(b *testing.B) {
			needsTreeSitter(b, tc.lang)
			// The grammar loads once per process, before the loop.
			if _, err := Parse(tc.lang, tc.src); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(tc.src)))
			for b.Loop() {
				if _, err := Parse(tc.lang, tc.src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestConcurrentParse shares the parser pools between goroutines (run with
// -race).
func TestConcurrentParse(t *testing.T) {
	needsTreeSitter(t, "typescript")
	files := map[string]string{"user.ts": "typescript", "models.py": "python", "sample.go": "go", "lib.rs": "rust"}
	want := map[string]string{}
	srcs := map[string][]byte{}
	for f, lang := range files {
		o := mustParse(t, lang, f)
		want[f] = format(o)
		srcs[f], _ = os.ReadFile(filepath.Join("testdata", f))
	}
	// Eight goroutines each parse every file ten times: enough overlap to
	// share the parser pools (and for -race to see it); more only repeats.
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 10; i++ {
				for f, src := range srcs {
					o, err := Parse(files[f], src)
					if err != nil {
						errs <- err
						return
					}
					if got := format(o); got != want[f] {
						errs <- fmt.Errorf("%s: outline differs under concurrency", f)
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
