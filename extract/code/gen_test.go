package code

import (
	"fmt"
	"strings"
)

// genTS returns a TypeScript file of about n lines: classes of 10 methods
// (each 4 lines with a doc comment), and the line span of the method
// Class{k}.method{j} is known: see tsMethodSpan.
func genTS(n int) []byte {
	var b strings.Builder
	b.WriteString("import { x } from \"./x\";\n\n") // lines 1-2
	for k := 0; lineCount(&b) < n; k++ {
		fmt.Fprintf(&b, "/** Class %d. */\nexport class Class%d {\n  private v = %d;\n\n", k, k, k)
		for j := 0; j < 10; j++ {
			fmt.Fprintf(&b, "  /** Method %d. */\n  method%d(a: number): number {\n    return a + this.v + %d;\n  }\n\n", j, j, j)
		}
		b.WriteString("}\n\n")
	}
	return []byte(b.String())
}

// tsMethodSpan is the span of Class{k}.method{j} in genTS.
func tsMethodSpan(k, j int) (int, int) {
	start := 3 + k*56 + 4 + j*5
	return start, start + 3
}

// genGo returns a Go file of about n lines of types and methods.
func genGo(n int) []byte {
	var b strings.Builder
	b.WriteString("package gen\n\n") // lines 1-2
	for k := 0; lineCount(&b) < n; k++ {
		fmt.Fprintf(&b, "// T%d is a type.\ntype T%d struct{ v int }\n\n", k, k)
		for j := 0; j < 10; j++ {
			fmt.Fprintf(&b, "// M%d is a method.\nfunc (t *T%d) M%d(a int) int {\n\treturn a + t.v + %d\n}\n\n", j, k, j, j)
		}
	}
	return []byte(b.String())
}

// goMethodSpan is the span of T{k}.M{j} in genGo.
func goMethodSpan(k, j int) (int, int) {
	start := 3 + k*53 + 3 + j*5
	return start, start + 3
}

func lineCount(b *strings.Builder) int { return strings.Count(b.String(), "\n") }
