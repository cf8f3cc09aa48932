package sql

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/retrieve-dev/retrieve"
)

func TestParseTarget(t *testing.T) {
	for in, want := range map[string]string{
		"sql:app/users?id=42":                 "sql:app/users?id=42",
		"sql:app/public.users?id=42&org=7":    "sql:app/public.users?id=42&org=7",
		"sql:app/users?name=J%C3%BCrgen":      "sql:app/users?name=Jürgen",
		"sql:app/users?note=a%26b%3Dc%23d":    "sql:app/users?note=a%26b%3Dc%23d",
		"sql:app/users?deleted_at":            "sql:app/users?deleted_at",
		"sql:app/users?name=":                 "sql:app/users?name=",
		"sql:app":                             "sql:app",
		"sql:app#" + strings.Repeat("ab", 32): "sql:app#" + strings.Repeat("ab", 32),
	} {
		got, err := ParseTarget(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got.String() != want {
			t.Errorf("%s: %s, want %s", in, got.String(), want)
		}
	}
	for _, in := range []string{"sql:", "sql:/t?id=1", "sql:app/?id=1", "sql:app/t", "sql:app/t?", "sql:app/t?a=1&a=2", "sql:app#zz", "sql:-x/t?id=1", "sql:app/t\"x?id=1", "sql:app/t?id=%zz"} {
		if _, err := ParseTarget(in); retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
			t.Errorf("%s: %v, want INPUT_VALIDATION_FAILED", in, err)
		}
	}
}

func TestCheckStatement(t *testing.T) {
	for _, q := range []string{"SELECT 1", "select 1;", "  WITH x AS (SELECT 1) SELECT * FROM x ; -- done", "SELECT ';' AS s", "SELECT $$;$$", "(SELECT 1)", "SELECT 'copy' AS attach_note", "SELECT 1 /* ; */"} {
		if err := CheckStatement(q, false); err != nil {
			t.Errorf("%q refused: %v", q, err)
		}
	}
	for _, q := range []string{"SELECT 1; SELECT 2", "DELETE FROM t", "SELECT 1 INTO OUTFILE '/tmp/x'", "SELECT 'unterminated", "/* open", "SELECT pg_read_file('x')", "; SELECT 1"} {
		if err := CheckStatement(q, false); retrieve.ErrorCode(err) != retrieve.CodeQueryRejected {
			t.Errorf("%q: %v, want QUERY_REJECTED", q, err)
		}
	}
	// A backslash ends no string in PostgreSQL, and escapes a quote in MySQL.
	q := `SELECT 'a\'; DELETE FROM t; --'`
	if err := CheckStatement(q, false); err == nil {
		t.Errorf("postgres reading of %q accepted", q)
	}
	if err := CheckStatement(q, true); err != nil {
		t.Errorf("mysql reading of %q refused: %v", q, err)
	}
	if NormaliseQuery("SELECT  a,\n\tb FROM t ;") != "SELECT a, b FROM t" || QueryHash("SELECT 1") != QueryHash("  SELECT\n1;") {
		t.Errorf("normalisation: %q", NormaliseQuery("SELECT  a,\n\tb FROM t ;"))
	}
	if NormaliseQuery("SELECT 'a  b'") != "SELECT 'a  b'" {
		t.Errorf("whitespace inside a literal changed")
	}
}

func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"sql:app/users?id=42", "sql:app/s.t?a=1&b", "sql:app#" + strings.Repeat("0", 64), "sql:a/t?x=%E2%9C%93", "sql:", "sql:a/b?=", "sql:a/t?id=%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := ParseTarget(s)
		if err != nil {
			if retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
				t.Fatalf("code %s", retrieve.ErrorCode(err))
			}
			return
		}
		// The canonical form parses back to the same target.
		again, err := ParseTarget(tg.String())
		if err != nil {
			t.Fatalf("%q → %q does not parse: %v", s, tg.String(), err)
		}
		if again.String() != tg.String() {
			t.Fatalf("not canonical: %q → %q → %q", s, tg.String(), again.String())
		}
		if tg.Table != "" {
			for _, d := range []*dialect{{quoteChar: "`"}, {quoteChar: `"`, dollar: true}} {
				q := d.recordQuery(tg)
				if err := CheckStatement(q, d.quoteChar == "`"); err != nil {
					t.Fatalf("record query %q of %q is not one read statement: %v", q, s, err)
				}
			}
		}
	})
}

func FuzzCheckStatement(f *testing.F) {
	for _, s := range []string{"SELECT 1", "SELECT 1; DROP TABLE t", "SELECT 'a'';'", "SELECT $x$;$x$", "SELECT `a;b`", "-- c\nSELECT 1", "SELECT 1 # c", "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
		"SELECT pg_advisory_lock(1)", "SELECT pg_catalog.pg_notify('c', 'x')", `SELECT "pg_switch_wal"()`, "SELECT GET_LOCK /* c */ ('x', 1)", "SELECT * FROM t FOR UPDATE", "SELECT NEXT VALUE FOR s", "SELECT 'pg_notify(' AS x"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, q string, backslash bool) {
		err := CheckStatement(q, backslash)
		if err != nil {
			if c := retrieve.ErrorCode(err); c != retrieve.CodeQueryRejected && c != retrieve.CodeInputValidation {
				t.Fatalf("code %s", c)
			}
			return
		}
		// An accepted query starts with a read verb.
		lx := lexer{src: q, backslash: backslash}
		for {
			tok, ok := lx.next()
			if !ok {
				t.Fatalf("accepted %q without a statement", q)
			}
			if tok.kind == tkWord {
				if !readVerbs()[strings.ToUpper(tok.text)] {
					t.Fatalf("accepted %q starting with %q", q, tok.text)
				}
				break
			}
		}
		_ = NormaliseQuery(q)
	})
}

// FuzzDeniedFunctions: however a denied function is spelled — any case,
// qualified, quoted, with spaces or comments before its parenthesis, after
// any accepted prefix — the call is refused.
func FuzzDeniedFunctions(f *testing.F) {
	f.Add(uint(0), uint64(0), uint8(0), "SELECT ")
	f.Add(uint(7), uint64(0xffff), uint8(3), "SELECT 1, ")
	f.Add(uint(40), uint64(0xaaaa), uint8(6), "WITH x AS (SELECT 1) SELECT ")
	names := make([]string, 0, len(deniedFunctions())+len(deniedFunctionPrefixes()))
	for n := range deniedFunctions() {
		names = append(names, n)
	}
	for p := range deniedFunctionPrefixes() {
		names = append(names, p+"LOCK")
	}
	slices.Sort(names)
	f.Fuzz(func(t *testing.T, pick uint, caseMask uint64, form uint8, prefix string) {
		if CheckStatement(prefix+"1", false) != nil || CheckStatement(prefix+"1", true) != nil {
			return // only prefixes that leave an expression open
		}
		for _, bs := range []bool{false, true} {
			// …and where what follows is a token of its own, not inside a
			// comment, a literal or a longer word.
			lx := lexer{src: prefix + "1", backslash: bs}
			var last, before token
			for {
				tok, ok := lx.next()
				if !ok {
					break
				}
				before, last = last, tok
			}
			if last.kind != tkWord || last.text != "1" || before.kind == tkWord || before.kind == tkComment || before.text == "." {
				return
			}
		}
		name := []byte(names[pick%uint(len(names))])
		for i := range name {
			if caseMask&(1<<(i%64)) != 0 {
				name[i] = byte(unicode.ToLower(rune(name[i])))
			}
		}
		call := string(name)
		switch form % 7 {
		case 1:
			call = "pg_catalog." + call
		case 2:
			call = `"` + call + `"`
		case 3:
			call += " "
		case 4:
			call += "/* x */"
		case 5:
			call += "\n\t"
		case 6:
			call = "`" + call + "`"
		}
		for _, bs := range []bool{false, true} {
			q := prefix + call + "(1)"
			if err := CheckStatement(q, bs); retrieve.ErrorCode(err) != retrieve.CodeQueryRejected {
				t.Fatalf("CheckStatement(%q, %v) = %v, want QUERY_REJECTED", q, bs, err)
			}
		}
	})
}
