package memory

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The X-IPE golden notes (internal/frontmatter/testdata/README.md).
const upstreamNotes = "../internal/frontmatter/testdata/xipe/*.md"

// TestUpstreamNoteRoundTrip: a note X-IPE's keeper wrote, read and
// rendered again, keeps its bytes.
func TestUpstreamNoteRoundTrip(t *testing.T) {
	files, _ := filepath.Glob(upstreamNotes)
	if len(files) < 5 {
		t.Fatalf("golden notes: %v", files)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			p := ParseNote(in)
			if p.Warnings() != "" || !p.HasFrontmatter || p.Note.ID == "" {
				t.Fatalf("parse: %+v", p)
			}
			out, err := p.Note.Render()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, in) {
				t.Errorf("render changed the bytes:\n got %q\nwant %q", out, in)
			}
		})
	}
}

// TestUpstreamWriterBytes: a note with the values X-IPE's keeper writes
// as they are comes out byte for byte as its _build_frontmatter writes it,
// also after an update in place.
func TestUpstreamWriterBytes(t *testing.T) {
	for _, n := range []Note{
		{ID: "sem-20260416-001", Title: "Flask Jinja2 Templating", Type: Semantic, Tags: []string{"flask", "python"},
			Metadata: map[string]any{"source": "https://flask.palletsprojects.com/"}, Created: "2026-04-16T10:30:00Z", Updated: "2026-04-16T10:30:00Z", Body: "# Flask\n"},
		{ID: "epi-20260417-002", Title: "Deploy: staging - prod", Type: Episodic, Created: "2026-04-17T08:00:00Z", Updated: "2026-04-18T09:15:00Z", Body: "x"},
		{ID: "proc-20260418-003", Title: "Déjà vu — 日本語 🎉", Type: Procedural, Tags: []string{"-x", "ops: deploy", "émoji 🎉"},
			Metadata: map[string]any{"a": "1", "b": "2026-04-18"}, Created: "2026-04-18T12:00:00Z", Updated: "2026-04-18T12:00:00Z", Body: ""},
	} {
		out, err := n.Render()
		if err != nil {
			t.Fatal(err)
		}
		want := upstreamBuild(n) + "\n" + n.Body
		if string(out) != want {
			t.Errorf("render:\n got %q\nwant %q", out, want)
		}
		// An update as the keeper makes it: read, bump updated, render.
		p := ParseNote(out)
		m := p.Note
		m.Updated = "2026-05-01T00:00:00Z"
		m.Tags = append(m.Tags, "new")
		out, err = m.Render()
		if err != nil {
			t.Fatal(err)
		}
		if want := upstreamBuild(m) + "\n" + m.Body; string(out) != want {
			t.Errorf("update:\n got %q\nwant %q", out, want)
		}
	}
}

// TestOurNotesReadUpstream: what Render writes, X-IPE's line reader
// (_read_frontmatter) reads as the values written, awkward ones included.
// Its limits, which no quoting can get past, are listed and checked to be
// valid YAML at least: a tag with a comma (it splits the list on commas),
// a value on several lines (it reads line by line), a title with both kinds
// of quote (it strips the outer quotes without unescaping), "---" in a
// value (it splits the file on the first two).
func TestOurNotesReadUpstream(t *testing.T) {
	titles := []string{"plain", "a: b", "- leading dash", "#hash", "Déjà vu — 日本語 🎉", `Say "hi"`, `C:\path`, "it's", "2026-04-16", "true", "[x]", "{y}"}
	tags := [][]string{{}, {"flask", "python"}, {"ops: deploy", "-x", "日本語 🎉", "it's", `say "hi"`, "true", "2026-04-16"}}
	for _, title := range titles {
		for _, tg := range tags {
			n := Note{ID: "sem-20260416-001", Title: title, Type: Semantic, Tags: tg, Metadata: map[string]any{"source": "https://x/y?a=b#c", "note": title},
				Created: "2026-04-16T10:30:00Z", Updated: "2026-04-16T10:30:00Z", Body: "Body.\n"}
			out, err := n.Render()
			if err != nil {
				t.Fatal(err)
			}
			up := upstreamRead(string(out))
			if up["title"] != title || up["memory_entry_id"] != n.ID || up["memory_type"] != n.Type || up["created"] != n.Created || up["updated"] != n.Updated {
				t.Errorf("upstream reads %q as %v", out, up)
			}
			if got, _ := up["tags"].([]string); !reflect.DeepEqual(got, tg) {
				t.Errorf("upstream reads tags %q as %q from\n%s", tg, got, out)
			}
			if md, _ := up["metadata"].(map[string]string); md["note"] != title || md["source"] != "https://x/y?a=b#c" {
				t.Errorf("upstream reads metadata as %v from\n%s", up["metadata"], out)
			}
			if p := ParseNote(out); p.Warning != "" || p.Note.Title != title || !reflect.DeepEqual(p.Note.Tags, tg) && len(tg) > 0 {
				t.Errorf("we read %q as %+v", out, p)
			}
		}
	}
	for _, n := range []Note{
		{Title: "line one\nline two", Tags: []string{"a, b"}},
		{Title: `both ' and "`, Tags: []string{"x"}},
		{Title: "a --- b", Tags: []string{"x"}}, // it splits the file on the first two "---"
	} {
		n.ID, n.Type = "sem-20260416-001", Semantic
		out, err := n.Render()
		if err != nil {
			t.Fatal(err)
		}
		if p := ParseNote(out); p.Warning != "" || p.Note.Title != n.Title || !reflect.DeepEqual(p.Note.Tags, n.Tags) {
			t.Errorf("beyond upstream's reader, still YAML: %q read as %+v", out, p.Note)
		}
	}
}

// upstreamBuild is X-IPE's _build_frontmatter (memory_ops.py), for values
// it writes as they are.
func upstreamBuild(n Note) string {
	tags, _ := json.Marshal(append([]string{}, n.Tags...))
	tagsText := strings.ReplaceAll(string(tags), `","`, `", "`)
	lines := []string{"---", "memory_entry_id: " + n.ID, `title: "` + n.Title + `"`, "memory_type: " + n.Type, "tags: " + tagsText}
	if len(n.Metadata) > 0 {
		lines = append(lines, "metadata:")
		for _, k := range slices.Sorted(maps.Keys(n.Metadata)) {
			lines = append(lines, "  "+k+`: "`+n.Metadata[k].(string)+`"`)
		}
	}
	lines = append(lines, `created: "`+n.Created+`"`, `updated: "`+n.Updated+`"`, "---")
	return strings.Join(lines, "\n") + "\n"
}

// upstreamRead is X-IPE's _read_frontmatter (memory_ops.py), line for
// line: split on "---", then per line key before the first colon, a
// "[…]" value split on commas, outer quotes stripped, indented lines a
// one-level mapping.
func upstreamRead(text string) map[string]any {
	if !strings.HasPrefix(text, "---") {
		return nil
	}
	parts := strings.SplitN(text, "---", 3)
	if len(parts) < 3 {
		return nil
	}
	strip := func(v string) string { return strings.Trim(strings.Trim(v, `"`), "'") }
	result := map[string]any{}
	current, indent := "", []string(nil)
	flush := func() {
		if current != "" && len(indent) > 0 {
			sub := map[string]string{}
			for _, l := range indent {
				k, v, _ := strings.Cut(strings.TrimSpace(l), ":")
				sub[strings.TrimSpace(k)] = strip(strings.TrimSpace(v))
			}
			result[current] = sub
		}
		current, indent = "", nil
	}
	for _, line := range strings.Split(strings.TrimSpace(parts[1]), "\n") {
		if strings.HasPrefix(line, "  ") && current != "" {
			indent = append(indent, line)
			continue
		}
		flush()
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch {
		case value == "":
			current = key
		case strings.HasPrefix(value, "[") && strings.HasSuffix(value, "]"):
			items := []string{}
			for _, i := range strings.Split(value[1:len(value)-1], ",") {
				if strings.TrimSpace(i) != "" {
					items = append(items, strip(strings.TrimSpace(i)))
				}
			}
			result[key] = items
		case len(value) >= 2 && (value[0] == '"' && value[len(value)-1] == '"' || value[0] == '\'' && value[len(value)-1] == '\''):
			result[key] = value[1 : len(value)-1]
		default:
			result[key] = value
		}
	}
	flush()
	return result
}
