// Package mcpconfig writes one entry into an MCP client's configuration file
// — a JSON or JSONC file (Claude Code, Cursor, VS Code, Claude Desktop) or a
// TOML file (Codex) — without losing anything else in it: other servers,
// other settings, comments. It refuses a file it cannot parse, a read-only
// file and an entry that already exists (unless forced), keeps a backup of
// the file it changes, and checks the written file by parsing it again.
//
// `retrieve mcp install` builds its Edits from the client table in
// clients.go; other entries of the same files (Claude Code hooks in
// .claude/settings.json) are Edits too.
package mcpconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/workspace"
	"github.com/tailscale/hujson"
)

// Format is the syntax of a configuration file.
type Format string

// Formats.
const (
	// JSON is strict JSON (RFC 8259): a file with comments is refused, since
	// the client would not read it either.
	JSON Format = "json"
	// JSONC is JSON with comments and trailing commas (VS Code); comments are
	// kept.
	JSONC Format = "jsonc"
	TOML  Format = "toml"
)

// Edit sets one entry of a configuration file.
type Edit struct {
	// Path is the file, created with its directories when missing.
	Path   string
	Format Format
	// Key is where the entry goes: ["mcpServers", "retrieve"],
	// ["mcp_servers", "retrieve"]. The tables or objects on the way are
	// created when missing.
	Key []string
	// Value is the entry: JSON-like values (maps, slices, strings…).
	Value map[string]any
	// Within, when set, is the workspace a project-scoped file must stay in:
	// a symlinked file or folder that leads out of it is refused.
	Within string
	// Appends, when set (JSON files only), adds items to arrays instead of
	// setting Value: Appends[name] are appended to the array at Key + name
	// (created when missing), each item only when an equal one is not there
	// yet, so that running the edit twice changes nothing. Claude Code's
	// hooks ({"hooks": {"Stop": [...]}}) are edited this way: the user's
	// other hooks stay.
	Appends map[string][]any
}

// Options change how Apply writes.
type Options struct {
	// Force replaces an existing entry (the backup keeps the old one).
	Force bool
	// Now names the backup; time.Now when zero.
	Now time.Time
	// DryRun checks the edit — the file reads, parses, is writable and
	// takes the entry — and writes nothing: an install of several files
	// checks them all first, so that it never stops half-installed.
	DryRun bool
}

// Result says what Apply did.
type Result struct {
	Path string `json:"path"`
	// Backup is the copy of the file before the change, empty when the file
	// was created.
	Backup   string `json:"backup,omitempty"`
	Created  bool   `json:"created"`
	Replaced bool   `json:"replaced"`
	// Unchanged is set when the file already held the entry as it would
	// be written: nothing was written and no backup made.
	Unchanged bool `json:"unchanged"`
}

// Snippet returns the smallest document of the edit's format that holds
// the entry: what to paste into the file by hand.
func Snippet(e Edit) ([]byte, error) {
	if e.Appends != nil {
		v := map[string]any{}
		for k, items := range e.Appends {
			v[k] = items
		}
		e.Value, e.Appends = v, nil
	}
	if e.Format == TOML {
		return tomlTable(e.Key, e.Value)
	}
	doc, err := orderedJSON(e.Value)
	if err != nil {
		return nil, err
	}
	for i := len(e.Key) - 1; i >= 0; i-- {
		k, _ := json.Marshal(e.Key[i])
		doc = []byte("{" + string(k) + ":" + string(doc) + "}")
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, doc, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// keyOrder is the order of an entry's keys in the files we write (the
// clients' documented examples); other keys follow, sorted.
// MaxConfigBytes caps a client's config file read by install: a 200 MB
// ~/.claude.json cost 2.5 GB to merge into (issue #32).
const MaxConfigBytes = 32 << 20

var keyOrder = []string{"type", "command", "args", "env", "url"}

func orderedKeys(v map[string]any) []string {
	var keys []string
	for _, k := range keyOrder {
		if _, ok := v[k]; ok {
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range v {
		if !slices.Contains(keyOrder, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

// orderedJSON marshals an entry with its keys in keyOrder.
func orderedJSON(v map[string]any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range orderedKeys(v) {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(v[k])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Apply writes the entry into the file.
func Apply(e Edit, opts Options) (Result, error) {
	res := Result{Path: e.Path}
	if len(e.Key) == 0 {
		return res, fmt.Errorf("mcpconfig: empty key")
	}
	// A symlinked config file (a dotfiles manager's) is written where it
	// points, so that the link stays; in a workspace, only inside it.
	real, err := resolve(e.Path, e.Within)
	if err != nil {
		return res, err
	}
	e.Path = real
	res.Path = real
	old, err := workspace.ReadRegular(e.Path, MaxConfigBytes, false)
	mode := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		res.Created = true
	case err != nil:
		return res, fileError(e.Path, err)
	default:
		info, err := os.Stat(e.Path)
		if err != nil {
			return res, fileError(e.Path, err)
		}
		mode = info.Mode().Perm()
		if mode&0o200 == 0 {
			return res, retrieve.Errorf(retrieve.CodePermissionDenied, "%s is read-only", e.Path).
				WithHint("make it writable (chmod u+w) or use --print and add the entry by hand")
		}
	}
	var out []byte
	switch {
	case e.Appends != nil && e.Format == TOML:
		return res, fmt.Errorf("mcpconfig: appends are for JSON files")
	case e.Appends != nil:
		out, err = appendJSON(e, old)
	case e.Format == TOML:
		out, res.Replaced, err = setTOML(e, old, opts.Force)
	default:
		out, res.Replaced, err = setJSON(e, old, opts.Force)
	}
	if errors.Is(err, errUnchanged) {
		res.Unchanged = true
		return res, nil
	}
	if err != nil {
		return res, err
	}
	if !res.Created && bytes.Equal(out, old) {
		res.Unchanged = true
		return res, nil
	}
	if opts.DryRun {
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(e.Path), 0o755); err != nil {
		return res, fileError(e.Path, err)
	}
	if !res.Created {
		now := opts.Now
		if now.IsZero() {
			now = time.Now()
		}
		res.Backup = e.Path + "." + now.UTC().Format("20060102T150405Z") + ".bak"
		if err := writeFile(res.Backup, old, mode); err != nil {
			return res, fileError(res.Backup, err)
		}
	}
	if err := writeFile(e.Path, out, mode); err != nil {
		return res, fileError(e.Path, err)
	}
	removeOldBackups(e.Path, res.Backup)
	return res, nil
}

// errUnchanged says the file already holds the entry as it would be
// written: Apply then writes nothing (a second install is a no-op).
var errUnchanged = errors.New("mcpconfig: the entry is already there")

// sameValue reports whether the value in a file equals the entry's value,
// compared as JSON (numbers, key order and TOML's types aside).
func sameValue(have any, want map[string]any) bool {
	a, err1 := json.Marshal(have)
	b, err2 := json.Marshal(want)
	if err1 != nil || err2 != nil {
		return false
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// backupStamp matches the suffix Apply gives its backups.
var backupStamp = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\.\d{8}T\d{6}Z\.bak$`) })

// removeOldBackups removes the backups of path that earlier installs left,
// keeping keep (this install's): one backup, the last, stays beside the
// file. Files not named as Apply names them are never touched.
func removeOldBackups(path, keep string) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, de := range entries {
		name := de.Name()
		rest, ok := strings.CutPrefix(name, base)
		if !ok || !backupStamp().MatchString(rest) || !de.Type().IsRegular() {
			continue
		}
		if p := filepath.Join(dir, name); p != keep {
			_ = os.Remove(p)
		}
	}
}

// resolve follows symlinks of path (or of its folder when the file does
// not exist yet); with within set, the result must lie inside it.
func resolve(path, within string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		dir, derr := filepath.EvalSymlinks(filepath.Dir(path))
		if derr != nil {
			return path, nil // created with its folders
		}
		real, err = filepath.Join(dir, filepath.Base(path)), nil
	}
	if err != nil {
		return "", fileError(path, err)
	}
	if within != "" {
		w, err := filepath.EvalSymlinks(within)
		if err != nil {
			return "", fileError(within, err)
		}
		if rel, err := filepath.Rel(w, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", retrieve.Errorf(retrieve.CodeOutsideRoot, "%s leads out of the workspace (to %s)", path, real).
				WithHint("a symlinked config file in a project must stay in it; remove the link, or use --print")
		}
	}
	return real, nil
}

// writeFile replaces path atomically: a temp file in the same folder,
// renamed over it.
func writeFile(path string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

func fileError(path string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return retrieve.Errorf(retrieve.CodePermissionDenied, "cannot write %s", path).WithErr(err).
			WithHint("check the permissions of the file and its folder, or use --print and add the entry by hand")
	}
	return retrieve.Errorf(retrieve.CodeWriteFailed, "cannot write %s", path).WithErr(err).
		WithHint("use --print and add the entry by hand")
}

func parseError(path, format string, err error) error {
	return retrieve.Errorf(retrieve.CodeParseFailed, "%s is not valid %s: %v", path, format, err).WithErr(err).
		WithHint("fix the file (nothing was changed), or use --print and add the entry by hand")
}

func existsError(path string, key []string) error {
	return retrieve.Errorf(retrieve.CodeInvalidOperation, "%s already has %s", path, strings.Join(key, ".")).
		WithHint("pass --force to replace it (a backup of the file is kept), or --print to see the entry")
}

// ---- JSON and JSONC ----

func setJSON(e Edit, old []byte, force bool) ([]byte, bool, error) {
	if len(bytes.TrimSpace(old)) == 0 {
		old = []byte("{}\n")
	}
	name := "JSON"
	if e.Format == JSONC {
		name = "JSON or JSONC"
	}
	v, err := hujson.Parse(bytes.Clone(old)) // the Value aliases its input
	if err == nil && e.Format != JSONC && !json.Valid(old) {
		err = errors.New("comments or trailing commas are not JSON")
	}
	if err != nil {
		return nil, false, parseError(e.Path, name, err)
	}
	before, err := standardValue(v)
	if err != nil {
		return nil, false, parseError(e.Path, "JSON", err)
	}
	root, ok := before.(map[string]any)
	if !ok {
		return nil, false, parseError(e.Path, "JSON", errors.New("the top level is not an object"))
	}
	// Find the deepest existing object on the key's path.
	cur, depth := root, 0
	for ; depth < len(e.Key)-1; depth++ {
		next, found := cur[e.Key[depth]]
		if !found {
			break
		}
		m, ok := next.(map[string]any)
		if !ok {
			return nil, false, parseError(e.Path, "JSON", fmt.Errorf("%q is not an object", strings.Join(e.Key[:depth+1], ".")))
		}
		cur = m
	}
	replaced := false
	if depth == len(e.Key)-1 {
		_, replaced = cur[e.Key[depth]]
	}
	if replaced && sameValue(cur[e.Key[depth]], e.Value) {
		return nil, false, errUnchanged
	}
	if replaced && !force {
		return nil, false, existsError(e.Path, e.Key)
	}
	// The value added at the first missing key holds the rest of the path.
	valJSON, err := orderedJSON(e.Value)
	if err != nil {
		return nil, false, err
	}
	for i := len(e.Key) - 1; i > depth; i-- {
		k, _ := json.Marshal(e.Key[i])
		valJSON = []byte("{" + string(k) + ":" + string(valJSON) + "}")
	}
	op := "add"
	if replaced {
		op = "replace"
	}
	patch, err := json.Marshal([]map[string]any{{"op": op, "path": pointer(e.Key[:depth+1]), "value": json.RawMessage(valJSON)}})
	if err != nil {
		return nil, false, err
	}
	if err := v.Patch(patch); err != nil {
		return nil, false, fmt.Errorf("mcpconfig: patch %s: %w", e.Path, err)
	}
	out, err := packChecked(e.Path, old, v, withEntry(before, e.Key, e.Value))
	return out, replaced, err
}

// packChecked renders the patched document v — plain JSON stays plain
// JSON, two-space indented, keys in order; JSONC keeps its comments — and
// checks that the result parses and decodes to want: the old document
// with the entry set, nothing else lost or changed.
func packChecked(path string, old []byte, v hujson.Value, want any) ([]byte, error) {
	var out []byte
	if json.Valid(old) {
		v.Standardize()
		var buf bytes.Buffer
		if err := json.Indent(&buf, v.Pack(), "", "  "); err != nil {
			return nil, err
		}
		out = append(bytes.TrimSpace(buf.Bytes()), '\n')
	} else {
		v.Format()
		out = v.Pack()
	}
	after, err := hujson.Parse(out)
	if err != nil {
		return nil, fmt.Errorf("mcpconfig: the edited %s does not parse: %w", path, err)
	}
	got, err := standardValue(after)
	if err != nil {
		return nil, err
	}
	if !reflect.DeepEqual(got, want) {
		return nil, fmt.Errorf("mcpconfig: the edited %s lost or changed other entries", path)
	}
	return out, nil
}

// appendJSON adds e.Appends to the arrays under e.Key, keeping the rest of
// the file, and checks the result as setJSON does.
func appendJSON(e Edit, old []byte) ([]byte, error) {
	if len(bytes.TrimSpace(old)) == 0 {
		old = []byte("{}\n")
	}
	v, err := hujson.Parse(bytes.Clone(old))
	if err == nil && e.Format != JSONC && !json.Valid(old) {
		err = errors.New("comments or trailing commas are not JSON")
	}
	if err != nil {
		return nil, parseError(e.Path, "JSON", err)
	}
	before, err := standardValue(v)
	if err != nil {
		return nil, parseError(e.Path, "JSON", err)
	}
	if _, ok := before.(map[string]any); !ok {
		return nil, parseError(e.Path, "JSON", errors.New("the top level is not an object"))
	}
	want := roundTrip(before).(map[string]any)
	var patch []map[string]any
	for _, name := range slices.Sorted(maps.Keys(e.Appends)) {
		key := append(slices.Clone(e.Key), name)
		// The deepest existing object on the way.
		cur, depth := want, 0
		for ; depth < len(key)-1; depth++ {
			next, found := cur[key[depth]]
			if !found {
				break
			}
			m, ok := next.(map[string]any)
			if !ok {
				return nil, parseError(e.Path, "JSON", fmt.Errorf("%q is not an object", strings.Join(key[:depth+1], ".")))
			}
			cur = m
		}
		items := roundTrip(e.Appends[name]).([]any)
		if depth < len(key)-1 {
			// Missing on the way: add the rest of the path with the items.
			var val any = items
			for i := len(key) - 1; i > depth; i-- {
				val = map[string]any{key[i]: val}
			}
			patch = append(patch, map[string]any{"op": "add", "path": pointer(key[:depth+1]), "value": val})
			cur[key[depth]] = val
			continue
		}
		arr, found := cur[key[depth]]
		if !found {
			patch = append(patch, map[string]any{"op": "add", "path": pointer(key), "value": items})
			cur[key[depth]] = items
			continue
		}
		list, ok := arr.([]any)
		if !ok {
			return nil, parseError(e.Path, "JSON", fmt.Errorf("%q is not an array", strings.Join(key, ".")))
		}
		for _, it := range items {
			if slices.ContainsFunc(list, func(x any) bool { return reflect.DeepEqual(x, it) }) {
				continue
			}
			patch = append(patch, map[string]any{"op": "add", "path": pointer(key) + "/-", "value": it})
			list = append(list, it)
		}
		cur[key[depth]] = list
	}
	if len(patch) > 0 {
		pb, err := json.Marshal(patch)
		if err != nil {
			return nil, err
		}
		if err := v.Patch(pb); err != nil {
			return nil, fmt.Errorf("mcpconfig: patch %s: %w", e.Path, err)
		}
	}
	return packChecked(e.Path, old, v, want)
}

// roundTrip is v as decoded JSON (numbers as json.Number), so that values
// compare alike with what standardValue returns.
func roundTrip(v any) any {
	b, _ := json.Marshal(v)
	var out any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	_ = dec.Decode(&out)
	return out
}

// standardValue decodes a JSONC value as plain JSON.
func standardValue(v hujson.Value) (any, error) {
	c := v.Clone()
	c.Standardize()
	var out any
	dec := json.NewDecoder(bytes.NewReader(c.Pack()))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// withEntry returns doc (decoded JSON) with value set at key, through a
// JSON round trip of value so that both sides compare alike.
func withEntry(doc any, key []string, value map[string]any) any {
	b, _ := json.Marshal(doc)
	var out any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	_ = dec.Decode(&out)
	vb, _ := json.Marshal(value)
	var v any
	dec = json.NewDecoder(bytes.NewReader(vb))
	dec.UseNumber()
	_ = dec.Decode(&v)
	cur := out.(map[string]any)
	for _, k := range key[:len(key)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	cur[key[len(key)-1]] = v
	return out
}

// pointer is the JSON Pointer (RFC 6901) of key.
func pointer(key []string) string {
	var b strings.Builder
	for _, k := range key {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(k))
	}
	return b.String()
}

// ---- TOML ----

// setTOML appends the entry as a table at the end of the file (the rest of
// the file, comments included, is left byte for byte); with force, the
// entry's old table is cut out first.
func setTOML(e Edit, old []byte, force bool) ([]byte, bool, error) {
	var before map[string]any
	if err := toml.Unmarshal(old, &before); err != nil {
		return nil, false, parseError(e.Path, "TOML", err)
	}
	if before == nil {
		before = map[string]any{}
	}
	replaced := lookup(before, e.Key) != nil
	if replaced && sameValue(lookup(before, e.Key), e.Value) {
		return nil, false, errUnchanged
	}
	if replaced && !force {
		return nil, false, existsError(e.Path, e.Key)
	}
	text := string(old)
	if replaced {
		cut, ok := cutTOMLTable(text, e.Key)
		if !ok {
			return nil, false, retrieve.Errorf(retrieve.CodeInvalidOperation, "%s defines %s inline, not as a [%s] table", e.Path, strings.Join(e.Key, "."), strings.Join(e.Key, ".")).
				WithHint("remove it by hand, then run the command again; --print shows the entry")
		}
		text = cut
	}
	table, err := tomlTable(e.Key, e.Value)
	if err != nil {
		return nil, false, err
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	out := []byte(text + string(table))
	var after map[string]any
	if err := toml.Unmarshal(out, &after); err != nil {
		return nil, false, retrieve.Errorf(retrieve.CodeInvalidOperation, "cannot add a [%s] table to %s: %v", strings.Join(e.Key, "."), e.Path, err).
			WithHint("the file defines %s in a form a new table cannot extend; add the entry by hand (--print shows it)", e.Key[0])
	}
	want := roundTripTOML(withEntry(before, e.Key, e.Value))
	if !reflect.DeepEqual(roundTripTOML(after), want) {
		return nil, false, fmt.Errorf("mcpconfig: the edited %s lost or changed other entries", e.Path)
	}
	return out, replaced, nil
}

// tomlTable renders [key] and the entry's keys.
func tomlTable(key []string, value map[string]any) ([]byte, error) {
	var b strings.Builder
	b.WriteString("[" + tomlKey(key) + "]\n")
	for _, k := range orderedKeys(value) {
		line, err := toml.Marshal(map[string]any{k: value[k]})
		if err != nil {
			return nil, err
		}
		b.Write(line)
	}
	return []byte(b.String()), nil
}

var bareKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

func tomlKey(key []string) string {
	parts := make([]string, len(key))
	for i, k := range key {
		if bareKey().MatchString(k) {
			parts[i] = k
		} else {
			b, _ := json.Marshal(k)
			parts[i] = string(b)
		}
	}
	return strings.Join(parts, ".")
}

// cutTOMLTable removes the [key] table and its sub-tables ([key.env]);
// false when the file has no such header (the entry is inline or dotted).
func cutTOMLTable(text string, key []string) (string, bool) {
	lines := strings.SplitAfter(text, "\n")
	var out []string
	found, inside := false, false
	for _, l := range lines {
		if name, ok := tomlHeader(l); ok {
			inside = sameOrUnder(name, key)
			found = found || inside
		}
		if !inside {
			out = append(out, l)
		}
	}
	return strings.Join(out, ""), found
}

var headerRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[([^\[\]]+)\]\s*(#.*)?$`) })

// tomlHeader returns the key of a [table] header line.
func tomlHeader(line string) ([]string, bool) {
	m := headerRe().FindStringSubmatch(strings.TrimRight(line, "\r\n"))
	if m == nil {
		return nil, false
	}
	var doc map[string]any
	if err := toml.Unmarshal([]byte("["+m[1]+"]"), &doc); err != nil {
		return nil, false
	}
	var key []string
	cur := doc
	for len(cur) == 1 {
		for k, v := range cur {
			key = append(key, k)
			next, _ := v.(map[string]any)
			cur = next
		}
	}
	return key, true
}

func sameOrUnder(name, key []string) bool {
	if len(name) < len(key) {
		return false
	}
	for i := range key {
		if name[i] != key[i] {
			return false
		}
	}
	return true
}

func lookup(doc map[string]any, key []string) any {
	var cur any = doc
	for _, k := range key {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

// roundTripTOML normalizes decoded values (json.Number, int64, slices) so
// that two documents compare by content.
func roundTripTOML(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}
