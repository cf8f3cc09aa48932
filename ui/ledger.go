package ui

import (
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/retrieve-dev/retrieve"
)

// logRow is one ledger row as the log operation returns it.
type logRow struct {
	ID         string  `json:"retrieval_id"`
	Time       string  `json:"time"`
	Op         string  `json:"op"`
	Target     string  `json:"target"`
	Source     string  `json:"source"`
	Status     string  `json:"status"`
	Code       string  `json:"code"`
	Reference  string  `json:"reference"`
	Hash       string  `json:"hash"`
	DurationMS float64 `json:"duration_ms"`
}

type logOutput struct {
	Entries    []logRow `json:"entries"`
	NextCursor string   `json:"next_cursor"`
}

// ledgerFilter is the ledger page's form: the log operation's filters.
type ledgerFilter struct {
	Target string
	Source string
	Op     string
	Status string
	Since  string
	Until  string
	Cursor string
	Limit  int
}

func ledgerFilterOf(q url.Values) ledgerFilter {
	f := ledgerFilter{
		Target: q.Get("target"), Source: q.Get("source"), Op: q.Get("op"), Status: q.Get("status"),
		Since: q.Get("since"), Until: q.Get("until"), Cursor: q.Get("cursor"), Limit: 50,
	}
	if n, err := strconv.Atoi(q.Get("limit")); err == nil && n > 0 && n <= 500 {
		f.Limit = n
	}
	return f
}

// fields are the filter's set fields, by the log operation's input names.
func (f ledgerFilter) fields() map[string]string {
	out := map[string]string{}
	for k, v := range map[string]string{"target": f.Target, "source": f.Source, "op": f.Op, "status": f.Status,
		"since": f.Since, "until": f.Until, "cursor": f.Cursor} {
		if v != "" {
			out[k] = v
		}
	}
	return out
}

// input is the log operation's input for the filter.
func (f ledgerFilter) input() map[string]any {
	in := map[string]any{"limit": f.Limit}
	for k, v := range f.fields() {
		in[k] = v
	}
	return in
}

// query is the URL query of the filter with another cursor.
func (f ledgerFilter) query(cursor string) string {
	f.Cursor = cursor
	q := url.Values{}
	for k, v := range f.fields() {
		q.Set(k, v)
	}
	if f.Limit != 50 {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	return q.Encode()
}

type ledgerView struct {
	Filter ledgerFilter
	// Log is the tamper-evident log's state (nil without one); LogErr
	// says why it could not be read; Export downloads the filter's bundle.
	Log     *LogState
	LogErr  string
	Export  template.URL
	Audit   template.URL
	Rows    []logRow
	Next    template.URL // the next (older) page, "" at the end
	First   template.URL // the first page, "" on it
	Sources []string     // the source filter: the table's kinds (its engine's registry)
}

func (h *Handler) ledger(w http.ResponseWriter, r *http.Request) {
	h.ledgerPage(w, r, false)
}

func (h *Handler) ledgerPage(w http.ResponseWriter, r *http.Request, audit bool) {
	f := ledgerFilterOf(r.URL.Query())
	var out logOutput
	if err := h.call(r.Context(), "log", f.input(), &out); err != nil {
		h.fail(w, r, err)
		return
	}
	v := ledgerView{Filter: f, Rows: out.Entries, Sources: h.table.Kinds}
	if h.opts.Log != nil {
		v.Export = f.exportURL()
		v.Audit = template.URL("/ui/ledger/audit?" + f.query(f.Cursor))
		st, err := h.opts.Log.State(r.Context(), audit)
		if err != nil {
			v.LogErr = retrieve.AsError(err).Message
		}
		v.Log = st
	}
	if out.NextCursor != "" {
		v.Next = template.URL("/ui/ledger?" + f.query(out.NextCursor))
	}
	if f.Cursor != "" {
		v.First = template.URL("/ui/ledger?" + f.query(""))
	}
	h.render(w, http.StatusOK, "ledger", page{Title: "Ledger", Nav: "ledger", Data: v})
}

// activity is a run of ledger entries with no gap of more than
// activityGap between two of them: the sessions page groups CLI and MCP
// activity this way when no recorded session names it.
type activity struct {
	Start, End string
	Rows       []logRow
	OK, Failed int
}

const activityGap = 30 * time.Minute

func groupActivity(rows []logRow) []activity {
	var out []activity
	var last time.Time
	for _, r := range rows { // newest first
		t, err := time.Parse(time.RFC3339Nano, r.Time)
		if err != nil {
			continue
		}
		if len(out) == 0 || last.Sub(t) > activityGap {
			out = append(out, activity{End: r.Time})
		}
		a := &out[len(out)-1]
		a.Start = r.Time
		a.Rows = append(a.Rows, r)
		if r.Status == "ok" {
			a.OK++
		} else {
			a.Failed++
		}
		last = t
	}
	return out
}
