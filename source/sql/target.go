package sql

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/retrieve-dev/retrieve"
)

// Target is a parsed sql: target.
//
//	sql:<conn>/<table>?<col>=<value>[&<col>=<value>…]   a record by key
//	sql:<conn>/<schema>.<table>?<col>                    <col> IS NULL
//	sql:<conn>                                           a query (--query)
//	sql:<conn>#<sha256 of the normalised query>          a query, as cited
//	sql:<conn>#<sha256>#rows=101-200                     rows 101 to 200 of it
//	sql:<conn>#<sha256>#rows=101-                        rows 101 on (max_rows of them)
type Target struct {
	Conn      string
	Schema    string
	Table     string
	Keys      []Key
	QueryHash string
	// Rows is the row window of a paged query (#rows=), or nil.
	Rows *RowWindow
}

// RowWindow is a window of a query's rows, 1-based and inclusive; End 0
// is open (as many rows as max_rows lets through).
type RowWindow struct {
	Start, End int
}

// maxRowNumber bounds the numbers of a row window.
const maxRowNumber = 1_000_000_000_000

// String is the fragment value: "101-200" or "101-".
func (w RowWindow) String() string {
	if w.End == 0 {
		return strconv.Itoa(w.Start) + "-"
	}
	return strconv.Itoa(w.Start) + "-" + strconv.Itoa(w.End)
}

// ParseRowWindow parses the value of a #rows= fragment: START-END or
// START-, 1-based, in canonical digits (no sign, no leading zero).
func ParseRowWindow(s string) (RowWindow, error) {
	var w RowWindow
	bad := func() (RowWindow, error) {
		return RowWindow{}, retrieve.Errorf(retrieve.CodeInputValidation, "#rows=%s is not a row window", s).
			WithHint("write #rows=START-END or #rows=START- with row numbers from 1, START <= END (docs/sql.md, \"Paging\")")
	}
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return bad()
	}
	num := func(x string) (int, bool) {
		if x == "" || len(x) > 13 || x[0] == '0' || strings.Trim(x, "0123456789") != "" {
			return 0, false
		}
		n, err := strconv.Atoi(x)
		return n, err == nil && n <= maxRowNumber
	}
	var good bool
	if w.Start, good = num(a); !good {
		return bad()
	}
	if b != "" {
		if w.End, good = num(b); !good || w.End < w.Start {
			return bad()
		}
	}
	return w, nil
}

// Key is one key column of a record target; Null selects IS NULL.
type Key struct {
	Column string
	Value  string
	Null   bool
}

func invalid(format string, args ...any) *retrieve.Error {
	return retrieve.Errorf(retrieve.CodeInputValidation, format, args...).
		WithHint("write sql:<connection>/<table>?<column>=<value> for a record, or sql:<connection> with --query for a query")
}

// ParseTarget parses a sql: target.
func ParseTarget(s string) (Target, error) {
	var t Target
	rest, ok := strings.CutPrefix(s, "sql:")
	if !ok {
		return t, invalid("%q is not a sql: target", s)
	}
	// A # in a record's names and values is escaped: a literal one starts
	// a fragment.
	if i := strings.LastIndex(rest, "#rows="); i >= 0 {
		w, err := ParseRowWindow(rest[i+len("#rows="):])
		if err != nil {
			return t, err
		}
		t.Rows = &w
		rest = rest[:i]
	}
	if conn, hash, ok := strings.Cut(rest, "#"); ok {
		if len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" {
			return t, invalid("%q: the part after # must be the 64-digit hex sha256 of the query", s)
		}
		t.QueryHash = hash
		rest = conn
	}
	conn, tbl, hasTable := strings.Cut(rest, "/")
	if !validConn(conn) {
		return t, invalid("%q names no valid connection", s)
	}
	t.Conn = conn
	if !hasTable {
		return t, nil
	}
	if t.QueryHash != "" {
		return t, invalid("%q: a record target has no query hash", s)
	}
	tbl, query, hasKeys := strings.Cut(tbl, "?")
	name, err := url.PathUnescape(tbl)
	if err != nil {
		return t, invalid("%q: bad escape in the table name", s)
	}
	if schema, table, ok := strings.Cut(name, "."); ok {
		t.Schema, t.Table = schema, table
	} else {
		t.Table = name
	}
	if !validIdent(t.Table) || (t.Schema != "" || strings.Contains(name, ".")) && !validIdent(t.Schema) {
		return t, invalid("%q: %q is not a table name", s, name)
	}
	if !hasKeys || query == "" {
		return t, invalid("%q names a table but no key", s).
			WithHint("add the key: sql:%s/%s?<column>=<value>; or query it with sql:%s --query 'SELECT …'", conn, tbl, conn)
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(query, "&") {
		col, val, hasVal := strings.Cut(part, "=")
		c, err := url.PathUnescape(col)
		if err != nil || !validIdent(c) {
			return t, invalid("%q: %q is not a column name", s, col)
		}
		if seen[c] {
			return t, invalid("%q names column %s twice", s, c)
		}
		seen[c] = true
		k := Key{Column: c, Null: !hasVal}
		if hasVal {
			if k.Value, err = url.PathUnescape(val); err != nil {
				return t, invalid("%q: bad escape in the value of %s", s, c)
			}
		}
		t.Keys = append(t.Keys, k)
	}
	return t, nil
}

func validConn(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || i > 0 && (r == '.' || r == '-')) {
			return false
		}
	}
	return true
}

// validIdent accepts any printable name up to 128 characters: identifiers
// are always quoted, so only characters that cannot be quoted are refused.
func validIdent(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if r == 0 || r == '`' || r == '"' || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// String is the canonical reference of a record or query target.
func (t Target) String() string {
	var b strings.Builder
	b.WriteString("sql:" + t.Conn)
	if t.Table == "" {
		if t.QueryHash != "" {
			b.WriteString("#" + t.QueryHash)
		}
		if t.Rows != nil {
			b.WriteString("#rows=" + t.Rows.String())
		}
		return b.String()
	}
	b.WriteString("/")
	if t.Schema != "" {
		b.WriteString(escape(t.Schema) + ".")
	}
	b.WriteString(escape(t.Table) + "?")
	for i, k := range t.Keys {
		if i > 0 {
			b.WriteString("&")
		}
		b.WriteString(escape(k.Column))
		if !k.Null {
			b.WriteString("=" + escape(k.Value))
		}
	}
	if t.Rows != nil {
		b.WriteString("#rows=" + t.Rows.String())
	}
	return b.String()
}

// escape percent-encodes what the target syntax uses, and control
// characters; other characters (Unicode included) stay readable.
func escape(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c < 0x21 || c == 0x7f || strings.IndexByte("%&=#?/.+", c) >= 0 {
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// NormaliseQuery is the form of a query that its citation hashes: runs of
// whitespace outside literals become one space, and surrounding whitespace
// and a final semicolon go.
func NormaliseQuery(q string) string {
	var b strings.Builder
	lx := lexer{src: q}
	space := false
	for {
		tok, ok := lx.next()
		if !ok {
			break
		}
		if tok.kind == tkSpace {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteString(tok.text)
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(b.String()), ";"))
}

// QueryHash is the hex sha256 of the normalised query.
func QueryHash(q string) string {
	sum := sha256.Sum256([]byte(NormaliseQuery(q)))
	return hex.EncodeToString(sum[:])
}

// readVerbs are the statements a query may start with.
var readVerbs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"SELECT": true, "WITH": true, "VALUES": true, "TABLE": true, "SHOW": true, "EXPLAIN": true, "DESCRIBE": true, "DESC": true}
})

// deniedWords reach outside the database (files, programs, other
// databases) or change session state, which a read-only transaction does
// not stop. They are refused wherever they appear outside literals.
var deniedWords = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"ATTACH": "attaches another database file", "DETACH": "detaches a database",
		"PRAGMA": "changes SQLite settings", "LOAD_EXTENSION": "loads native code",
		"OUTFILE": "writes a file on the server", "DUMPFILE": "writes a file on the server",
		"LOAD_FILE": "reads a file on the server", "INFILE": "reads a file",
		"PG_READ_FILE": "reads a file on the server", "PG_READ_BINARY_FILE": "reads a file on the server",
		"PG_LS_DIR": "lists server directories", "PG_STAT_FILE": "reads server file metadata",
		"LO_IMPORT": "reads a file on the server", "LO_EXPORT": "writes a file on the server",
		"LO_FROM_BYTEA": "creates a large object", "LO_PUT": "writes a large object",
		"DBLINK": "connects to another database", "DBLINK_EXEC": "runs a statement on another database",
		"SET_CONFIG": "changes session settings", "PG_TERMINATE_BACKEND": "ends other sessions",
		"PG_CANCEL_BACKEND": "cancels other sessions", "PG_RELOAD_CONF": "reloads the server configuration",
		"COPY": "copies to or from files and programs", "SYS_EXEC": "runs a program", "SYS_EVAL": "runs a program",
		// SELECT … INTO @var sets MariaDB/MySQL session variables, which a
		// read-only transaction allows; SELECT … INTO t creates a table.
		"INTO": "stores the result (in session variables or a new table) instead of returning it",
	}
})

// deniedFunctions are functions with side effects that a read-only
// transaction does not stop (locks, notifications, WAL switches,
// transaction ids, sequences, waits) or that run SQL given as a string,
// past this check. They are refused when called (name followed by "("),
// qualified (pg_catalog.pg_notify) or quoted ("pg_notify") alike.
var deniedFunctions = sync.OnceValue(func() map[string]string {
	return map[string]string{
		// PostgreSQL
		"PG_NOTIFY": "sends a notification to other sessions", "PG_SWITCH_WAL": "forces a WAL switch",
		"PG_SWITCH_XLOG": "forces a WAL switch", "PG_CREATE_RESTORE_POINT": "writes a restore point to the WAL",
		"TXID_CURRENT": "assigns a transaction id (a write)", "PG_CURRENT_XACT_ID": "assigns a transaction id (a write)",
		"NEXTVAL": "advances a sequence", "SETVAL": "sets a sequence",
		"PG_SLEEP": "holds a connection idle", "PG_SLEEP_FOR": "holds a connection idle", "PG_SLEEP_UNTIL": "holds a connection idle",
		"PG_ROTATE_LOGFILE": "rotates the server log", "PG_PROMOTE": "promotes a standby",
		"PG_LOG_BACKEND_MEMORY_CONTEXTS": "writes to the server log", "PG_LOGICAL_EMIT_MESSAGE": "writes to the WAL",
		"PG_DROP_REPLICATION_SLOT": "drops a replication slot", "PG_REPLICATION_SLOT_ADVANCE": "advances a replication slot",
		"PG_LOGICAL_SLOT_GET_CHANGES": "consumes a replication slot", "PG_LOGICAL_SLOT_GET_BINARY_CHANGES": "consumes a replication slot",
		"PG_COPY_PHYSICAL_REPLICATION_SLOT": "creates a replication slot", "PG_COPY_LOGICAL_REPLICATION_SLOT": "creates a replication slot",
		"PG_BACKUP_START": "starts a backup", "PG_BACKUP_STOP": "stops a backup", "PG_START_BACKUP": "starts a backup", "PG_STOP_BACKUP": "stops a backup",
		"PG_EXPORT_SNAPSHOT": "exports a snapshot", "PG_WAL_REPLAY_PAUSE": "pauses recovery", "PG_WAL_REPLAY_RESUME": "resumes recovery",
		"PG_FILE_WRITE": "writes a file on the server", "PG_FILE_RENAME": "renames a file on the server",
		"PG_FILE_UNLINK": "deletes a file on the server", "PG_FILE_SYNC": "syncs a file on the server",
		"LO_CREATE": "creates a large object", "LO_CREAT": "creates a large object", "LO_UNLINK": "deletes a large object",
		"LO_TRUNCATE": "truncates a large object", "LO_OPEN": "opens a large object for writing", "LOWRITE": "writes a large object",
		"QUERY_TO_XML": "runs SQL given as a string", "QUERY_TO_XML_AND_XMLSCHEMA": "runs SQL given as a string",
		"QUERY_TO_XMLSCHEMA": "runs SQL given as a string", "CURSOR_TO_XML": "reads a cursor", "CURSOR_TO_XMLSCHEMA": "reads a cursor",
		// MariaDB / MySQL
		"GET_LOCK": "takes a named lock", "RELEASE_LOCK": "releases a named lock", "RELEASE_ALL_LOCKS": "releases named locks",
		"SLEEP": "holds a connection idle", "BENCHMARK": "burns server CPU",
		"MASTER_POS_WAIT": "waits on replication", "MASTER_GTID_WAIT": "waits on replication", "SOURCE_POS_WAIT": "waits on replication",
		"WAIT_FOR_EXECUTED_GTID_SET": "waits on replication", "WAIT_UNTIL_SQL_THREAD_AFTER_GTIDS": "waits on replication",
		"LASTVAL": "reads session sequence state",
	}
})

// deniedFunctionPrefixes name families of such functions.
var deniedFunctionPrefixes = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"PG_ADVISORY_": "takes or releases an advisory lock", "PG_TRY_ADVISORY_": "takes an advisory lock",
		"DBLINK": "connects to another database", "PG_CREATE_": "creates a replication slot or restore point",
		"PG_REPLICATION_ORIGIN_": "changes replication origins", "PG_STAT_RESET": "resets statistics",
	}
})

// deniedPhrases are clauses that take row locks, or advance a sequence
// without a function call.
var deniedPhrases = sync.OnceValue(func() map[[2]string]string {
	return map[[2]string]string{
		{"FOR", "UPDATE"}: "takes row locks", {"FOR", "SHARE"}: "takes row locks", {"KEY", "UPDATE"}: "takes row locks",
		{"KEY", "SHARE"}: "takes row locks", {"SHARE", "MODE"}: "takes row locks",
		{"NEXT", "VALUE"}: "advances a sequence",
	}
})

// deniedFunction says why the function name (a word or a quoted
// identifier) is refused, or "".
func deniedFunction(name string) string {
	n := strings.ToUpper(name)
	if why, ok := deniedFunctions()[n]; ok {
		return why
	}
	for p, why := range deniedFunctionPrefixes() {
		if strings.HasPrefix(n, p) {
			return why
		}
	}
	return ""
}

// unquoteIdent returns the name inside a quoted identifier ("x", `x`,
// [x]) or "" for anything else.
func unquoteIdent(tok string) string {
	if len(tok) < 2 {
		return ""
	}
	switch q := tok[0]; q {
	case '"', '`':
		if tok[len(tok)-1] == q {
			return strings.ReplaceAll(tok[1:len(tok)-1], string([]byte{q, q}), string(q))
		}
	case '[':
		return strings.TrimSuffix(tok[1:], "]")
	}
	return ""
}

// CheckStatement refuses what is not one read statement: several
// statements, a statement that does not start with a read verb, the words
// that reach outside the database, the functions with side effects
// (deniedFunctions) and locking clauses. The database's read-only
// transaction is the enforcement; this check gives a clear reason first,
// and stops what a read-only transaction lets through. backslash says
// whether the dialect escapes quotes with a backslash inside strings
// (MySQL, MariaDB).
func CheckStatement(q string, backslash bool) error {
	lx := lexer{src: q, backslash: backslash}
	first := ""
	ended := false
	prev, prevWord := "", "" // the last word or quoted name; the last word
	for {
		tok, ok := lx.next()
		if !ok {
			break
		}
		switch tok.kind {
		case tkSpace, tkComment:
			continue
		case tkBad:
			return rejected("the query has an unterminated string, identifier or comment")
		}
		if ended {
			return rejected("the query holds more than one statement").
				WithHint("send one statement per request, without a semicolon in the middle")
		}
		if tok.kind == tkPunct && tok.text == ";" {
			ended = true
			continue
		}
		if tok.kind == tkPunct && tok.text == "(" && prev != "" {
			if why := deniedFunction(prev); why != "" {
				return rejected("%s() is refused: it %s", strings.ToUpper(prev), why).
					WithHint("retrieve only reads; functions with side effects are refused even where the database would allow them (docs/sql.md)")
			}
		}
		prev = ""
		if tok.kind == tkString {
			prev = unquoteIdent(tok.text)
			prevWord = ""
			continue
		}
		if tok.kind != tkWord {
			prevWord = ""
			if first == "" && tok.text != "(" {
				return rejected("the query does not start with a statement")
			}
			continue
		}
		prev = tok.text
		w := strings.ToUpper(tok.text)
		if first == "" {
			first = w
			if !readVerbs()[w] {
				return rejected("%s statements are refused: only reads (SELECT, WITH, VALUES, TABLE, SHOW, EXPLAIN) are allowed", w).
					WithHint("retrieve reads records; it never changes data or session state")
			}
		}
		if why, bad := deniedWords()[w]; bad {
			return rejected("%s is refused: it %s", w, why).
				WithHint("retrieve reads records of the connected database only")
		}
		if why, bad := deniedPhrases()[[2]string{prevWord, w}]; bad {
			return rejected("%s %s is refused: it %s", prevWord, w, why).
				WithHint("retrieve only reads; locking clauses and sequence updates are refused")
		}
		prevWord = w
	}
	if first == "" {
		return retrieve.Errorf(retrieve.CodeInputValidation, "the query is empty").
			WithHint("pass a SELECT statement with --query")
	}
	return nil
}

// Ordered reports whether a query's rows come in an order it fixes: an
// ORDER BY at the top level of the statement (outside parentheses), the
// only place that orders the result itself. A query without one may
// return its rows in another order on every read, so no row window of it
// names the same rows twice.
func Ordered(q string, backslash bool) bool {
	lx := lexer{src: q, backslash: backslash}
	depth := 0
	prev := ""
	for {
		tok, ok := lx.next()
		if !ok {
			return false
		}
		switch tok.kind {
		case tkSpace, tkComment:
			continue
		case tkPunct:
			switch tok.text {
			case "(":
				depth++
			case ")":
				depth--
			}
			prev = ""
			continue
		case tkWord:
			w := strings.ToUpper(tok.text)
			if depth == 0 && prev == "ORDER" && w == "BY" {
				return true
			}
			prev = w
			continue
		}
		prev = ""
	}
}

func rejected(format string, args ...any) *retrieve.Error {
	return retrieve.Errorf(retrieve.CodeQueryRejected, format, args...).
		WithHint("send one read statement (SELECT …) with --param for every value")
}

type tokKind int

const (
	tkSpace tokKind = iota
	tkComment
	tkWord
	tkString
	tkPunct
	tkBad
)

type token struct {
	kind tokKind
	text string
}

// lexer splits SQL into words, literals, comments and punctuation, well
// enough to find statement boundaries in PostgreSQL, MySQL and SQLite
// syntax ('…', "…", `…`, [..], $tag$…$tag$, --, #, /* */).
type lexer struct {
	src       string
	pos       int
	backslash bool
}

func (l *lexer) next() (token, bool) {
	if l.pos >= len(l.src) {
		return token{}, false
	}
	s, i := l.src, l.pos
	c := s[i]
	emit := func(k tokKind, end int) (token, bool) {
		t := token{kind: k, text: s[i:end]}
		l.pos = end
		return t, true
	}
	bad := func() (token, bool) { return emit(tkBad, len(s)) }
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		j := i
		for j < len(s) && strings.IndexByte(" \t\n\r\f\v", s[j]) >= 0 {
			j++
		}
		return emit(tkSpace, j)
	case c == '-' && strings.HasPrefix(s[i:], "--"), c == '#':
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return emit(tkComment, len(s))
		}
		return emit(tkComment, i+j+1)
	case c == '/' && strings.HasPrefix(s[i:], "/*"):
		j := strings.Index(s[i+2:], "*/")
		if j < 0 {
			return bad()
		}
		return emit(tkComment, i+2+j+2)
	case c == '\'' || c == '"' || c == '`':
		j := i + 1
		for j < len(s) {
			if s[j] == '\\' && c == '\'' && l.backslash && j+1 < len(s) {
				j += 2 // MySQL escapes
				continue
			}
			if s[j] == c {
				if j+1 < len(s) && s[j+1] == c {
					j += 2
					continue
				}
				return emit(tkString, j+1)
			}
			j++
		}
		return bad()
	case c == '[':
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			return emit(tkPunct, i+1)
		}
		return emit(tkString, i+j+1)
	case c == '$':
		// $tag$ … $tag$ (PostgreSQL) or $1 (a placeholder).
		j := i + 1
		for j < len(s) && (isWordByte(s[j]) && !(s[j] >= '0' && s[j] <= '9' && j == i+1)) {
			j++
		}
		if j < len(s) && s[j] == '$' {
			tag := s[i : j+1]
			k := strings.Index(s[j+1:], tag)
			if k < 0 {
				return bad()
			}
			return emit(tkString, j+1+k+len(tag))
		}
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return emit(tkPunct, max(j, i+1))
	case isWordByte(c):
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		return emit(tkWord, j)
	}
	return emit(tkPunct, i+1)
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
