package code

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBlankPythonBodies: a function's body becomes one pass on its last
// statement's last line, the comments after it kept; strings and brackets that look
// like a def or a colon, a one-line def and a class body are left alone.
func TestBlankPythonBodies(t *testing.T) {
	src := "class C:\n" +
		"    @property\n" +
		"    async def f(self, a=\"def g():\",\n" +
		"                b=(1, 2)):  # a colon:\n" +
		"        '''doc\n" +
		"def h():\n" +
		"        '''\n" +
		"        if a:\n" +
		"# at column 0\n" +
		"            return [\n" +
		"                1]\n" +
		"        # trailing, inside\n" +
		"    # before g, outside\n" +
		"    def g(self): return 1\n" +
		"X = 1\n"
	want := "class C:\n" +
		"    @property\n" +
		"    async def f(self, a=\"def g():\",\n" +
		"                b=(1, 2)):  # a colon:\n" +
		"\n\n\n\n\n\n" +
		"        pass\n" +
		"        # trailing, inside\n" +
		"    # before g, outside\n" +
		"    def g(self): return 1\n" +
		"X = 1\n"
	got, ok := blankPythonBodies([]byte(src))
	if !ok {
		t.Fatal("not blanked")
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("blanked (-want +got):\n%s", diff)
	}
	for _, bad := range []string{
		"def f():\n\tpass\n",                             // a tab
		"def f():\n    x = '''\n",                        // a string left open
		"def f():\n        a\n    b\nc = 1\n",            // a dedent to no level
		"def f():\n    x = (1 +\n\ndef g():\n    pass\n", // a bracket left open
	} {
		if _, ok := blankPythonBodies([]byte(bad)); ok {
			t.Errorf("%q blanked", bad)
		}
	}
}

// TestPythonBodyErrorNotParsed: a syntax error inside a body is not parsed;
// one outside the bodies still is (the whole file is then parsed).
func TestPythonBodyErrorNotParsed(t *testing.T) {
	needsTreeSitter(t, "python")
	o, err := Parse("python", []byte("def a():\n    x = = 1\n\ndef b():\n    pass\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o.SyntaxErrors {
		t.Error("an error inside a body is reported")
	}
	if got, want := format(o), "1-2 function a\n4-5 function b\n"; got != want {
		t.Errorf("outline %q, want %q", got, want)
	}
	if o, _ := Parse("python", []byte("def a():\n    pass\n\nclass (:\n")); !o.SyntaxErrors {
		t.Error("an error outside the bodies is not reported")
	}
}
