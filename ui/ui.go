// Package ui serves the review pages of `retrieve ui` and of `serve --http`
// under /ui/: the ledger as a timeline, one retrieval with its evidence and
// a "Verify now" diff, sessions, the knowledge graph with the evidence of
// every edge, memory notes, the wiki and a citation check of a pasted
// document.
//
// It is an adapter like httpapi and mcpserver: every page is built from the
// operations of an ops.Table (the same inputs, validation and errors as the
// API), rendered on the server with html/template, so every piece of
// retrieved content is escaped by the template engine. The few scripts
// (copy a citation, keyboard shortcuts) are progressive enhancement: every
// page works without them. Assets are embedded; nothing is fetched from a
// CDN. See docs/ui.md.
package ui

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/httpapi"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/wiki"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Prefix is the path the pages are served under.
const Prefix = "/ui/"

// ContentSecurityPolicy is sent with every page: scripts and styles only
// from this server's own files, no inline script, no framing, forms only
// to this server.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// Options configure the pages.
type Options struct {
	// Now is the clock of relative times (time.Now when nil).
	Now func() time.Time
	// Workspace is shown in the header (the workspace root).
	Workspace string
	// Wiki, when set, lists the wiki's pages with their backlinks (no
	// operation lists every page: agents search instead).
	Wiki *wiki.Wiki
	// Snapshots, when set, serves kept PDFs so that a citation's page opens
	// in the browser (/ui/snapshot/<hash>#page=N).
	Snapshots store.Snapshots
	// Log, when set, shows the tamper-evident log's state on the ledger
	// page and serves evidence bundles at /ui/export.
	Log Log
}

// Handler serves the pages. Mount it at Prefix behind the same guard as
// the API (token, Host and Origin checks): it does no authentication of
// its own.
type Handler struct {
	table *ops.Table
	opts  Options
	mux   *http.ServeMux
	pages map[string]*template.Template
}

// New returns the pages over the operations of t.
func New(t *ops.Table, opts Options) (*Handler, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	h := &Handler{table: t, opts: opts, mux: http.NewServeMux(), pages: map[string]*template.Template{}}
	if err := h.parse(); err != nil {
		return nil, err
	}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, err
	}
	h.mux.Handle("GET /ui/static/", http.StripPrefix("/ui/static/", staticHandler(http.FileServerFS(static))))
	h.mux.HandleFunc("GET /ui/{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ui/ledger", http.StatusSeeOther)
	})
	h.mux.HandleFunc("GET /ui/ledger", h.ledger)
	h.mux.HandleFunc("POST /ui/ledger/audit", h.ledgerAudit)
	h.mux.HandleFunc("GET /ui/export", h.export)
	h.mux.HandleFunc("GET /ui/r/{id}", h.retrieval)
	h.mux.HandleFunc("GET /ui/snapshot/{hash}", h.snapshot)
	h.mux.HandleFunc("POST /ui/r/{id}/verify", h.verify)
	h.mux.HandleFunc("GET /ui/sessions", h.sessions)
	h.mux.HandleFunc("GET /ui/sessions/{id}", h.session)
	h.mux.HandleFunc("POST /ui/sessions/{id}/verify", h.sessionVerify)
	h.mux.HandleFunc("GET /ui/graph", h.graph)
	h.mux.HandleFunc("GET /ui/memory", h.memory)
	h.mux.HandleFunc("GET /ui/memory/note", h.memoryNote)
	h.mux.HandleFunc("GET /ui/memory/forget", h.memoryForget)
	h.mux.HandleFunc("POST /ui/memory/forget", h.memoryForgetPost)
	h.mux.HandleFunc("GET /ui/wiki", h.wiki)
	h.mux.HandleFunc("GET /ui/wiki/page", h.wikiPage)
	h.mux.HandleFunc("GET /ui/check", h.checkForm)
	h.mux.HandleFunc("POST /ui/check", h.check)
	h.mux.HandleFunc("/ui/", func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, retrieve.Errorf(retrieve.CodeNotFound, "no page %s", r.URL.Path).WithHint("start from the ledger: /ui/ledger"))
	})
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", ContentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin") // no-referrer would make form posts send "Origin: null"
	hd.Set("X-Frame-Options", "DENY")
	h.mux.ServeHTTP(w, r)
}

func staticHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		next.ServeHTTP(w, r)
	})
}

// page is what every template gets: the layout's fields and the page's own.
type page struct {
	Title     string
	Nav       string
	Workspace string
	Data      any
	Err       *retrieve.ErrorInfo
}

var funcs = template.FuncMap{
	// command names what ran a session's check: a CLI command (verify,
	// check) or an MCP/HTTP tool (verify_citation, check_citations).
	"command": func(tool string) string {
		if strings.Contains(tool, "_") {
			return tool + " (MCP/HTTP)"
		}
		return "retrieve " + tool
	},
	"pct":  func(f float64) string { return fmt.Sprintf("%.0f%%", f*100) },
	"conf": func(f float64) string { return fmt.Sprintf("%.2f", f) },
	"confClass": func(f float64) string {
		switch {
		case f >= 0.8:
			return "c-high"
		case f >= 0.5:
			return "c-mid"
		default:
			return "c-low"
		}
	},
	"short": func(s string, n int) string {
		if r := []rune(s); len(r) > n {
			return string(r[:n-1]) + "…"
		}
		return s
	},
	"path": url.PathEscape,
	"list": func(xs ...string) []string { return xs },
	"json": func(v any) (string, error) {
		b, err := json.MarshalIndent(v, "", "  ")
		return string(b), err
	},
	// opt prints an optional value, "—" when it is absent.
	"opt": func(v any) string {
		switch x := v.(type) {
		case *string:
			if x != nil {
				return *x
			}
		case *int64:
			if x != nil {
				return fmt.Sprint(*x)
			}
		}
		return "—"
	},
}

// wikiLink is a [[target]] or [[target|label]] wikilink.
var wikiLink = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[\[([^\]|]*)(?:\|([^\]]*))?\]\]`) })

// plainLinks writes a wikilink as the words it shows (its label, else its
// target), so that a summary reads as text and is never cut inside a link.
func plainLinks(s string) string {
	re := wikiLink()
	return re.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.FindStringSubmatch(m)
		if strings.TrimSpace(sub[2]) != "" {
			return sub[2]
		}
		return sub[1]
	})
}

// when shows an RFC 3339 time (a ledger's nanoseconds included) as a
// person reads it: "2026-11-26 08:01:02 UTC · 3 min ago"; the exact value
// stays in the <time datetime> attribute.
func when(now func() time.Time) func(string) string {
	return func(v string) string {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return v
		}
		t = t.UTC()
		return t.Format("2006-01-02 15:04:05") + " UTC · " + ago(now().Sub(t))
	}
}

// ago is a duration as "just now", "3 min ago", "5 h ago", "2 days ago",
// "in 4 min" for the future.
func ago(d time.Duration) string {
	suffix := " ago"
	if d < 0 {
		d, suffix = -d, ""
	}
	var s string
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		s = fmt.Sprintf("%d min", int(d/time.Minute))
	case d < 48*time.Hour:
		s = fmt.Sprintf("%d h", int(d/time.Hour))
	default:
		s = fmt.Sprintf("%d days", int(d/(24*time.Hour)))
	}
	if suffix == "" {
		return "in " + s
	}
	return s + suffix
}

func (h *Handler) parse() error {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return err
	}
	fm := template.FuncMap{"when": when(h.opts.Now), "plain": plainLinks}
	for k, v := range funcs {
		fm[k] = v
	}
	for _, name := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(name, "templates/"), ".html")
		if base == "layout" {
			continue
		}
		t, err := template.New("layout.html").Funcs(fm).ParseFS(templateFS, "templates/layout.html", name)
		if err != nil {
			return fmt.Errorf("parse template %s: %w", name, err)
		}
		h.pages[base] = t
	}
	return nil
}

// render writes a page; a template error becomes a plain 500.
func (h *Handler) render(w http.ResponseWriter, status int, name string, p page) {
	t, ok := h.pages[name]
	if !ok {
		http.Error(w, "no template "+name, http.StatusInternalServerError)
		return
	}
	p.Workspace = h.opts.Workspace
	var buf bytes.Buffer
	if err := t.Execute(&buf, p); err != nil {
		http.Error(w, "render "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fail renders an error page with the code, message and hint.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	e := retrieve.AsError(err)
	h.render(w, httpapi.Status(e.Code), "error", page{Title: string(e.Code), Err: e.Info()})
}

// errNoOp says an operation is not served here (a store, memory, graph or
// wiki the server did not open).
var errNoOp = errors.New("operation not available")

// call runs the op name with input in and decodes its output into out
// through JSON: the pages depend on the operations' documented JSON, not
// on their Go types.
func (h *Handler) call(ctx context.Context, name string, in, out any) error {
	op, ok := h.table.Lookup(name)
	if !ok {
		return retrieve.Errorf(retrieve.CodeInvalidOperation, "this server has no %s operation", name).
			WithHint("run the server in a workspace with a store, memory, graph or wiki (retrieve init)").WithErr(errNoOp)
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return retrieve.Errorf(retrieve.CodeInternal, "encode %s input", name).WithErr(err)
	}
	oc := h.table.Call(ctx, op, raw, "ui")
	if oc.Err != nil && out == nil {
		return oc.Err
	}
	b, err := json.Marshal(oc.Value)
	if err != nil {
		return retrieve.Errorf(retrieve.CodeInternal, "encode %s output", name).WithErr(err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return retrieve.Errorf(retrieve.CodeInternal, "decode %s output", name).WithErr(err)
		}
	}
	if oc.Err != nil {
		return oc.Err
	}
	return nil
}

// has reports whether the table serves the op name.
func (h *Handler) has(name string) bool {
	_, ok := h.table.Lookup(name)
	return ok
}
