package ui

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/retrieve-dev/retrieve"
)

// Log is the ledger's tamper-evident log as the ledger page shows it, and
// the evidence bundles it offers to download. cmd/retrieve implements it
// over the workspace's store (docs/ledger.md); without one the page shows
// no log panel and /ui/export answers NOT_FOUND.
type Log interface {
	// State returns the log's size and last checkpoint, and with audit the
	// outcome of recomputing the log against it.
	State(ctx context.Context, audit bool) (*LogState, error)
	// Export writes the evidence bundle of sel to w.
	Export(ctx context.Context, w io.Writer, sel ExportSelection) error
}

// LogState is what the ledger page shows of the log.
type LogState struct {
	Size       int64
	Tombstones int
	Root       string
	// Checkpoint is the last signed checkpoint (nil when none).
	Checkpoint *LogCheckpoint
	// Audited is set when the log was recomputed: Consistent, or Findings
	// (each naming what was altered, inserted, removed or reordered).
	Audited    bool
	Consistent bool
	Findings   []string
}

// LogCheckpoint is a signed tree head.
type LogCheckpoint struct {
	Origin string
	Size   int64
	Root   string
	Time   time.Time
}

// ExportSelection is what a bundle holds: a session's entries, or the
// entries of the ledger page's filter.
type ExportSelection struct {
	Session                                  string
	Target, Source, Op, Status, Since, Until string
}

// maxUIBundle caps a bundle built for a download (it is built in memory
// so that a failure is an error page, not a truncated file).
const maxUIBundle = 512 << 20

// exportSelection reads a selection from a query.
func exportSelection(q url.Values) ExportSelection {
	return ExportSelection{Session: q.Get("session"), Target: q.Get("target"), Source: q.Get("source"), Op: q.Get("op"),
		Status: q.Get("status"), Since: q.Get("since"), Until: q.Get("until")}
}

// exportURL is the download link of the ledger page's filter.
func (f ledgerFilter) exportURL() template.URL {
	q := url.Values{}
	for k, v := range f.fields() {
		if k != "cursor" {
			q.Set(k, v)
		}
	}
	return template.URL("/ui/export?" + q.Encode())
}

func (h *Handler) export(w http.ResponseWriter, r *http.Request) {
	if h.opts.Log == nil {
		h.fail(w, r, retrieve.Errorf(retrieve.CodeNotFound, "this server keeps no tamper-evident log").
			WithHint("evidence bundles need the workspace's store: retrieve export on the command line"))
		return
	}
	sel := exportSelection(r.URL.Query())
	var buf bytes.Buffer
	lw := &limitedWriter{w: &buf, n: maxUIBundle}
	if err := h.opts.Log.Export(r.Context(), lw, sel); err != nil {
		h.fail(w, r, err)
		return
	}
	name := "retrieve-evidence-" + h.opts.Now().UTC().Format("20060102T150405Z") + ".zip"
	hd := w.Header()
	hd.Set("Content-Type", "application/zip")
	hd.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
	hd.Set("Content-Length", strconv.Itoa(buf.Len()))
	hd.Set("Cache-Control", "no-store")
	_, _ = w.Write(buf.Bytes())
}

// ledgerAudit is the ledger page with the log recomputed.
func (h *Handler) ledgerAudit(w http.ResponseWriter, r *http.Request) {
	h.ledgerPage(w, r, true)
}

type limitedWriter struct {
	w io.Writer
	n int64
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.n {
		return 0, retrieve.Errorf(retrieve.CodeTooLarge, "the bundle is over %d MiB: too large to download from the page", maxUIBundle>>20).
			WithHint("narrow the filter, or use `retrieve export -o FILE` on the command line")
	}
	l.n -= int64(len(p))
	return l.w.Write(p)
}
