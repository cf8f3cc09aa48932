package ui

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/retrieve-dev/retrieve"
)

// line is one line of retrieved text: its number in the source (0 when
// unknown) and whether an evidence anchor covers it.
type line struct {
	N      int
	Text   string
	Anchor bool
	ID     string // "L<n>" on the first line of an anchored span
}

type retrievalView struct {
	ID       string
	Result   *retrieve.Result
	Lines    []line
	Data     string // structured or binary data, as indented JSON
	Citation string // a Markdown citation to copy
	Verify   *verification
	// Page draws the cited PDF page, for a citation into a PDF.
	Page *pageView
}

// verification is the verify operation's output with the diff laid out.
type verification struct {
	retrieve.Verification
	Unified []diffLine
	Split   []splitRow
}

func (h *Handler) retrieval(w http.ResponseWriter, r *http.Request) {
	v, err := h.retrievalView(r, r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, http.StatusOK, "retrieval", page{Title: "Retrieval " + v.ID, Nav: "ledger", Data: v})
}

func (h *Handler) verify(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	v, err := h.retrievalView(r, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var out retrieve.Verification
	if err := h.call(r.Context(), "verify", map[string]string{"retrieval_id": id}, &out); err != nil && out.Status == "" {
		h.fail(w, r, err)
		return
	}
	v.Verify = &verification{Verification: out}
	v.Verify.Unified, v.Verify.Split = layoutDiff(out.Diff)
	h.render(w, http.StatusOK, "retrieval", page{Title: "Verify " + id, Nav: "ledger", Data: v})
}

func (h *Handler) retrievalView(r *http.Request, id string) (*retrievalView, error) {
	var res retrieve.Result
	if err := h.call(r.Context(), "show", map[string]string{"retrieval_id": id}, &res); err != nil && res.Citation.Reference == "" && (res.Error == nil || res.RetrievalID != id) {
		// No such entry (a recorded failure has its id and renders): the
		// page is the error, with its status (404 for an unknown id).
		return nil, err
	}
	v := &retrievalView{ID: id, Result: &res, Page: h.pageOf(r, &res)}
	switch d := res.Retrieved.Data.(type) {
	case nil:
	case string:
		v.Lines = numberLines(d, res.EvidenceAnchors)
	default:
		b, _ := json.MarshalIndent(d, "", "  ")
		v.Data = string(b)
	}
	if ref := res.Citation.Reference; ref != "" {
		v.Citation = "[" + ref + "](" + markdownDestination(ref) + ")"
		if res.Citation.Hash != nil {
			v.Citation += " " + *res.Citation.Hash
		}
	}
	return v, nil
}

// markdownDestination writes a reference as a Markdown link destination:
// in angle brackets when it has spaces or parentheses.
func markdownDestination(ref string) string {
	if strings.ContainsAny(ref, " ()<>") {
		return "<" + strings.NewReplacer("<", "%3C", ">", "%3E").Replace(ref) + ">"
	}
	return ref
}

var spanRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`:(\d+)-(\d+)$`) })

// numberLines splits data into lines and numbers them from the spans of the
// evidence anchors (path:START-END, one per contiguous span, in order):
// the returned text of a ranged read is those spans joined.
func numberLines(data string, anchors []string) []line {
	text := strings.TrimSuffix(data, "\n")
	parts := strings.Split(text, "\n")
	out := make([]line, len(parts))
	type span struct{ a, b int }
	var spans []span
	total := 0
	for _, a := range anchors {
		m := spanRe().FindStringSubmatch(a)
		if m == nil {
			continue
		}
		s, _ := strconv.Atoi(m[1])
		e, _ := strconv.Atoi(m[2])
		if s < 1 || e < s {
			continue
		}
		spans = append(spans, span{s, e})
		total += e - s + 1
	}
	if total != len(parts) {
		spans = nil // the anchors do not describe these lines: number from 1, mark nothing
	}
	i := 0
	for _, sp := range spans {
		for n := sp.a; n <= sp.b; n++ {
			out[i] = line{N: n, Text: parts[i], Anchor: true}
			if n == sp.a {
				out[i].ID = "L" + strconv.Itoa(n)
			}
			i++
		}
	}
	for ; i < len(parts); i++ {
		out[i] = line{N: i + 1, Text: parts[i]}
	}
	return out
}

// diffLine is one line of a unified diff: its kind ("add", "del", "ctx",
// "hunk", "head") and text.
type diffLine struct {
	Kind string
	Text string
}

// splitRow is one row of the side-by-side view: the old line on the left,
// the new on the right, either empty where the other side added or removed.
type splitRow struct {
	Hunk        string
	OldN, NewN  int
	Old, New    string
	OldK, NewK  string // "del"/"add"/"ctx"/"" (empty cell)
	HasOld, Has bool
}

var hunkRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@`) })

// layoutDiff lays a unified diff out as lines and as side-by-side rows;
// deletions and additions of one change are paired row by row.
func layoutDiff(diff string) ([]diffLine, []splitRow) {
	if diff == "" {
		return nil, nil
	}
	var uni []diffLine
	var rows []splitRow
	var dels, adds []splitRow
	oldN, newN := 0, 0
	flush := func() {
		n := max(len(dels), len(adds))
		for i := 0; i < n; i++ {
			var row splitRow
			if i < len(dels) {
				row.OldN, row.Old, row.OldK, row.HasOld = dels[i].OldN, dels[i].Old, "del", true
			}
			if i < len(adds) {
				row.NewN, row.New, row.NewK, row.Has = adds[i].NewN, adds[i].New, "add", true
			}
			rows = append(rows, row)
		}
		dels, adds = dels[:0], adds[:0]
	}
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "---") || strings.HasPrefix(l, "+++"):
			uni = append(uni, diffLine{"head", l})
		case strings.HasPrefix(l, "@@"):
			flush()
			uni = append(uni, diffLine{"hunk", l})
			if m := hunkRe().FindStringSubmatch(l); m != nil {
				oldN, _ = strconv.Atoi(m[1])
				newN, _ = strconv.Atoi(m[2])
			}
			rows = append(rows, splitRow{Hunk: l})
		case strings.HasPrefix(l, "-"):
			uni = append(uni, diffLine{"del", l})
			dels = append(dels, splitRow{OldN: oldN, Old: l[1:]})
			oldN++
		case strings.HasPrefix(l, "+"):
			uni = append(uni, diffLine{"add", l})
			adds = append(adds, splitRow{NewN: newN, New: l[1:]})
			newN++
		default:
			flush()
			t := strings.TrimPrefix(l, " ")
			uni = append(uni, diffLine{"ctx", l})
			rows = append(rows, splitRow{OldN: oldN, NewN: newN, Old: t, New: t, OldK: "ctx", NewK: "ctx", HasOld: true, Has: true})
			oldN++
			newN++
		}
	}
	flush()
	return uni, rows
}
