// Package httpapi serves an ops.Table as a plain HTTP JSON API under /v1/:
// POST /v1/<op> with a JSON body (GET /v1/<op>?field=value for read-only
// listing ops), the op's output as the response body, and one table from
// error code to HTTP status. It also serves /healthz, /readyz, /metrics
// (Prometheus text) and /openapi.yaml, and mounts the MCP endpoint.
package httpapi

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/docs"
	"github.com/retrieve-dev/retrieve/ops"
)

// Defaults of a Handler.
const (
	DefaultMaxBody = 8 << 20
	DefaultTimeout = 60 * time.Second
	// DefaultBodyTimeout is Options.BodyTimeout's default.
	DefaultBodyTimeout = 30 * time.Second
)

// Options configure the HTTP handler.
type Options struct {
	// Token, when set, is required as "Authorization: Bearer <token>" on
	// /v1/, /mcp and /metrics. It is compared in constant time.
	Token string
	// MaxBody caps a request body (DefaultMaxBody when 0).
	MaxBody int64
	// Timeout bounds one request (DefaultTimeout when 0).
	Timeout time.Duration
	// MCP, when set, is mounted at /mcp.
	MCP http.Handler
	// AllowedOrigins are browser origins allowed besides loopback ones
	// (http[s]://localhost:*, http[s]://127.0.0.1:*, http[s]://[::1]:*).
	AllowedOrigins []string
	// UI, when set, is mounted at /ui/ (the review pages of package ui)
	// behind the same Host, Origin and token checks as the API. A browser
	// cannot send a bearer header with a link, so /ui/ also takes the
	// token from a cookie, set once from ?token= (see docs/ui.md).
	UI http.Handler
	// Ready, when set, is asked by /readyz (with a 2 s deadline): an error
	// answers 503 with the reason (the store's database is down).
	Ready func(ctx context.Context) error
	// BodyTimeout bounds the time a client takes to send a request body
	// (DefaultBodyTimeout when 0); past it the request fails with TIMEOUT
	// and the connection is closed. A slow body no longer holds a
	// connection and a goroutine for good.
	BodyTimeout time.Duration
	// AllowedHosts are Host header values (a name, or name:port) accepted
	// on a loopback listener besides loopback names, e.g. the name a local
	// reverse proxy forwards.
	AllowedHosts []string
}

// Handler is the HTTP API.
type Handler struct {
	table *ops.Table
	opts  Options
	mux   *http.ServeMux
	ready atomic.Bool
	types map[string]map[string]string // op → field → JSON type, for query parameters
}

// New returns the handler of t. It is ready at once; SetReady(false) makes
// /readyz answer 503 (while draining on shutdown).
func New(t *ops.Table, opts Options) *Handler {
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	h := &Handler{table: t, opts: opts, mux: http.NewServeMux(), types: map[string]map[string]string{}}
	h.ready.Store(true)
	for _, op := range t.Ops() {
		h.types[op.Name] = fieldTypes(op.Input)
		for old, name := range op.ArgAliases { // former argument names, as query parameters too
			h.types[op.Name][old] = h.types[op.Name][name]
		}
		for _, name := range append([]string{op.Name}, op.Aliases...) {
			h.types[name] = h.types[op.Name]
			h.mux.Handle(op.Method+" /v1/"+name, h.guard(h.opHandler(op)))
		}
	}
	h.mux.Handle("/v1/", h.guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if op, ok := t.Lookup(strings.TrimPrefix(r.URL.Path, "/v1/")); ok {
			// The operation exists under its other method: say which.
			w.Header().Set("Allow", op.Method)
			how := "its fields as query parameters"
			if op.Method == http.MethodPost {
				how = "a JSON body"
			}
			writeError(w, retrieve.Errorf(retrieve.CodeInvalidOperation, "%s is %s %s, not %s", op.Name, op.Method, r.URL.Path, r.Method).
				WithHint("send %s %s with %s", op.Method, r.URL.Path, how))
			return
		}
		writeError(w, retrieve.Errorf(retrieve.CodeInvalidOperation, "no operation %s %s", r.Method, r.URL.Path).
			WithHint("see GET /openapi.yaml; operations: %s", strings.Join(t.Names(), ", ")))
	})))
	if opts.MCP != nil {
		h.mux.Handle("/mcp", h.guard(opts.MCP))
	}
	if opts.UI != nil {
		h.mux.Handle("/ui/", h.uiGuard(opts.UI))
		h.mux.Handle("GET /{$}", http.RedirectHandler("/ui/", http.StatusSeeOther))
	}
	h.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		b := retrieve.Build()
		writeJSON(w, http.StatusOK, healthz{Status: "ok", Version: b.Version, Commit: b.Commit, Date: b.Date})
	})
	h.mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if !h.ready.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("draining\n"))
			return
		}
		if opts.Ready != nil {
			ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
			err := opts.Ready(ctx)
			cancel()
			if err != nil {
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = w.Write([]byte("store unavailable\n"))
				return
			}
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	h.mux.Handle("GET /metrics", h.guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_ = t.Metrics.WritePrometheus(w)
	})))
	h.mux.HandleFunc("GET /openapi.yaml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		_, _ = w.Write(docs.OpenAPI)
	})
	return h
}

// healthz is the body of /healthz: the process serves, and which build it is
// (the version of retrieve version and of the MCP serverInfo).
type healthz struct {
	Status  string `json:"status"`
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
}

// SetReady sets what /readyz answers.
func (h *Handler) SetReady(ok bool) { h.ready.Store(ok) }

// ServeHTTP implements http.Handler. Every route, open ones included,
// passes the DNS-rebinding checks first: a loopback listener answers only
// a loopback Host, and a browser's Origin must be loopback or allowed.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.hostAllowed(r) {
		writeStatus(w, http.StatusForbidden, retrieve.Errorf(retrieve.CodePermissionDenied, "host %q is not allowed on a loopback listener", r.Host).
			WithHint("call the server as localhost, 127.0.0.1 or [::1], or pass the name with --allow-host-header"))
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !h.originAllowed(o) && !h.uiSameOrigin(r, o) {
		writeStatus(w, http.StatusForbidden, retrieve.Errorf(retrieve.CodePermissionDenied, "origin %q is not allowed", o).
			WithHint("browsers may call this server only from a loopback origin or one passed with --allow-origin"))
		return
	}
	h.mux.ServeHTTP(w, r)
}

// guard checks the bearer token, caps the body and bounds the time of a
// request.
func (h *Handler) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.opts.Token != "" && !tokenOK(r.Header.Get("Authorization"), h.opts.Token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="retrieve"`)
			writeStatus(w, http.StatusUnauthorized, retrieve.Errorf(retrieve.CodePermissionDenied, "missing or wrong bearer token").
				WithHint("send Authorization: Bearer <the server's RETRIEVE_TOKEN>"))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, h.opts.MaxBody)
		if r.Body != http.NoBody && r.ContentLength != 0 {
			// A deadline for the body only: cleared once it is read, so
			// that it never cuts a long call or an event stream short.
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(h.opts.BodyTimeout)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			}
		}
		if r.Method == http.MethodGet && r.URL.Path == "/mcp" {
			// The MCP event stream of a session stays open by design.
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), h.opts.Timeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// UICookie is the cookie that carries the token of a browser on /ui/.
const UICookie = "retrieve_ui_token"

// uiGuard is guard for the pages: the token may also come from the cookie,
// or from ?token=, which sets the cookie and redirects to the same page
// without the token in its URL (so it stays out of history and logs).
func (h *Handler) uiGuard(next http.Handler) http.Handler {
	inner := h.guard(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.opts.Token == "" {
			inner.ServeHTTP(w, r)
			return
		}
		if q := r.URL.Query(); q.Has("token") {
			if subtle.ConstantTimeCompare([]byte(q.Get("token")), []byte(h.opts.Token)) != 1 {
				writeStatus(w, http.StatusUnauthorized, retrieve.Errorf(retrieve.CodePermissionDenied, "wrong token").
					WithHint("open the URL that `retrieve ui` or `retrieve serve` printed"))
				return
			}
			http.SetCookie(w, &http.Cookie{Name: UICookie, Value: h.opts.Token, Path: "/ui/", HttpOnly: true,
				SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
			q.Del("token")
			u := *r.URL
			u.RawQuery = q.Encode()
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
			return
		}
		if c, err := r.Cookie(UICookie); err == nil && r.Header.Get("Authorization") == "" {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+c.Value)
		}
		if !tokenOK(r.Header.Get("Authorization"), h.opts.Token) && r.Method == http.MethodGet {
			// A person in a browser gets a page that says what to do, not
			// the API's JSON.
			hd := w.Header()
			hd.Set("Content-Type", "text/html; charset=utf-8")
			hd.Set("Content-Security-Policy", "default-src 'none'; base-uri 'none'; frame-ancestors 'none'")
			hd.Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, tokenPage)
			return
		}
		inner.ServeHTTP(w, r)
	})
}

// tokenPage is the review pages' answer to a browser without the token.
const tokenPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>retrieve: token required</title></head>
<body><h1>This server needs its token</h1>
<p>The review pages of this <code>retrieve serve</code> are protected by the bearer token in its
<code>RETRIEVE_TOKEN</code>. Open the address that <code>retrieve ui</code> or <code>retrieve serve</code>
printed (it ends in <code>?token=…</code>), or add <code>?token=&lt;the token&gt;</code> to this address
once: the browser then keeps it in a cookie for <code>/ui/</code> and the address loses it.</p>
<p>Error <code>PERMISSION_DENIED</code> (HTTP 401). See docs/ui.md.</p></body></html>
`

// uiSameOrigin accepts a page's own origin on /ui/ (its forms post back to
// it). The Host check has already refused a rebound name on a loopback
// listener, and off loopback the token is still required.
func (h *Handler) uiSameOrigin(r *http.Request, origin string) bool {
	if h.opts.UI == nil || !strings.HasPrefix(r.URL.Path, "/ui/") {
		return false
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, r.Host)
}

func tokenOK(header, token string) bool {
	got, ok := strings.CutPrefix(header, "Bearer ")
	if !ok {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}

// hostAllowed refuses a request that reached a loopback listener under a
// name that is not loopback: that is what a page whose DNS name was
// rebound to 127.0.0.1 sends. A listener on another address is reached
// through names the operator chose, and needs a token anyway.
func (h *Handler) hostAllowed(r *http.Request) bool {
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || la == nil || !loopbackHostPort(la.String()) {
		return true
	}
	if loopbackHostPort(r.Host) {
		return true
	}
	name, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		name = r.Host
	}
	for _, a := range h.opts.AllowedHosts {
		if strings.EqualFold(a, r.Host) || strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}

// loopbackHostPort reports whether host[:port] names loopback.
func loopbackHostPort(hp string) bool {
	host, _, err := net.SplitHostPort(hp)
	if err != nil {
		host = strings.Trim(hp, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originAllowed accepts loopback origins, http or https (a page served by
// this machine, whatever its scheme: a rebound page's Origin carries the
// attacker's name, never a loopback one), and the configured ones.
func (h *Handler) originAllowed(origin string) bool {
	for _, o := range h.opts.AllowedOrigins {
		if strings.EqualFold(o, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return u.User == nil && loopbackHostPort(u.Host)
}

func (h *Handler) opHandler(op *ops.Op) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in, err := h.input(op, r)
		if err != nil {
			writeError(w, err)
			return
		}
		oc := h.table.Call(r.Context(), op, in, "http")
		status := http.StatusOK
		if oc.Err != nil {
			status = Status(oc.Err.Code)
		}
		if oc.Encoded == nil {
			writeJSON(w, status, oc.Value)
			return
		}
		writeEncoded(w, status, oc.Encoded) // encoded once, by the call
	})
}

// input is the JSON input of a request: the body of a POST, the query
// parameters of a GET.
func (h *Handler) input(op *ops.Op, r *http.Request) (json.RawMessage, error) {
	if r.Method == http.MethodGet {
		return QueryToJSON(r.URL.Query(), h.types[op.Name])
	}
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return nil, retrieve.Errorf(retrieve.CodeUnsupportedFormat, "content type %q is not JSON", ct).
			WithHint("send Content-Type: application/json")
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r.Body); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, retrieve.Errorf(retrieve.CodeTimeout, "the request body did not arrive within %s", h.opts.BodyTimeout).
				WithHint("send the body at once")
		}
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, retrieve.Errorf(retrieve.CodeTooLarge, "request body is larger than %d bytes", mbe.Limit).
				WithHint("send a smaller request")
		}
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "cannot read the request body").WithErr(err)
	}
	return buf.Bytes(), nil
}

// QueryToJSON turns query parameters into the JSON object an op takes,
// converting each to the type its schema names; unknown parameters and
// bad values are INPUT_VALIDATION_FAILED.
func QueryToJSON(q url.Values, types map[string]string) (json.RawMessage, error) {
	m := map[string]any{}
	for k, vs := range q {
		typ, ok := types[k]
		if !ok {
			known := make([]string, 0, len(types))
			for name := range types {
				known = append(known, name)
			}
			sort.Strings(known)
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "unknown query parameter %q", k).
				WithHint("known parameters: %s (GET /openapi.yaml describes them)", strings.Join(known, ", "))
		}
		v := vs[len(vs)-1]
		switch typ {
		case "integer":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, retrieve.Errorf(retrieve.CodeInputValidation, "query parameter %q must be an integer, not %q", k, v).
					WithHint("write a whole number: ?%s=10", k)
			}
			m[k] = n
		case "boolean":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, retrieve.Errorf(retrieve.CodeInputValidation, "query parameter %q must be true or false, not %q", k, v).
					WithHint("write ?%s=true or ?%s=false", k, k)
			}
			m[k] = b
		case "array":
			m[k] = vs
		default:
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// fieldTypes reads the top-level property types of an input schema.
func fieldTypes(schema json.RawMessage) map[string]string {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	out := map[string]string{}
	for k, p := range s.Properties {
		switch t := p.Type.(type) {
		case string:
			out[k] = t
		case []any:
			out[k] = "object"
			for _, x := range t {
				if xs, ok := x.(string); ok && xs != "null" {
					out[k] = xs
				}
			}
		default:
			out[k] = "object"
		}
	}
	return out
}

// statuses maps every error code to its HTTP status. A code missing here
// is a test failure (TestEveryCodeHasAStatus).
var statuses = map[retrieve.Code]int{
	retrieve.CodeInputValidation:   http.StatusBadRequest,
	retrieve.CodePathNotFound:      http.StatusNotFound,
	retrieve.CodeNotAFile:          http.StatusUnprocessableEntity,
	retrieve.CodePermissionDenied:  http.StatusForbidden,
	retrieve.CodeOutsideRoot:       http.StatusForbidden,
	retrieve.CodeSensitivePath:     http.StatusForbidden,
	retrieve.CodeRangeNotFound:     http.StatusUnprocessableEntity,
	retrieve.CodeSectionNotFound:   http.StatusNotFound,
	retrieve.CodeSelectFailed:      http.StatusUnprocessableEntity,
	retrieve.CodeParseFailed:       http.StatusUnprocessableEntity,
	retrieve.CodeBlockedAddress:    http.StatusForbidden,
	retrieve.CodeRobotsDisallowed:  http.StatusForbidden,
	retrieve.CodeRateLimited:       http.StatusTooManyRequests,
	retrieve.CodeTimeout:           http.StatusGatewayTimeout,
	retrieve.CodeUpstreamStatus:    http.StatusBadGateway,
	retrieve.CodeTooLarge:          http.StatusRequestEntityTooLarge,
	retrieve.CodeUnsupportedFormat: http.StatusUnsupportedMediaType,
	retrieve.CodeUnknownSource:     http.StatusBadRequest,
	retrieve.CodeQueryRejected:     http.StatusForbidden,
	retrieve.CodeInvalidOperation:  http.StatusNotFound,
	retrieve.CodeOntologyUnavail:   http.StatusServiceUnavailable,
	retrieve.CodeSearchError:       http.StatusBadGateway,
	retrieve.CodeVersionNotFound:   http.StatusNotFound,
	retrieve.CodeNotFound:          http.StatusNotFound,
	retrieve.CodeChanged:           http.StatusConflict,
	retrieve.CodeQuoteNotFound:     http.StatusNotFound,
	retrieve.CodeEvidenceNotFound:  http.StatusNotFound,
	retrieve.CodeStoreUnavailable:  http.StatusServiceUnavailable,
	retrieve.CodeCanceled:          499,
	retrieve.CodeInternal:          http.StatusInternalServerError,
	retrieve.CodeInvalidMemoryType: http.StatusBadRequest,
	retrieve.CodeInvalidPath:       http.StatusBadRequest,
	retrieve.CodeWriteFailed:       http.StatusInsufficientStorage,
}

// Status is the HTTP status of an error code (500 for an unknown one).
func Status(c retrieve.Code) int {
	if s, ok := statuses[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

func writeError(w http.ResponseWriter, err error) {
	e := retrieve.AsError(err)
	writeStatus(w, Status(e.Code), e)
}

func writeStatus(w http.ResponseWriter, status int, e *retrieve.Error) {
	writeJSON(w, status, ops.ErrorBody{Error: e.Info()})
}

// writeJSON writes v as the response body; a large result's data is
// escaped straight into the response, not copied into a buffer first
// (ops.Encode).
func writeJSON(w http.ResponseWriter, status int, v any) {
	enc, err := ops.Encode(v, false)
	if err != nil {
		status = http.StatusInternalServerError
		enc, _ = ops.Encode(json.RawMessage(`{"error":{"code":"INTERNAL","message":"cannot encode the response","hint":"this is a bug in retrieve; please report it","alternatives":[]}}`), false)
	}
	writeEncoded(w, status, enc)
}

// writeEncoded writes an encoded body.
func writeEncoded(w http.ResponseWriter, status int, enc *ops.Encoded) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(enc.Len()))
	w.WriteHeader(status)
	_, _ = enc.WriteTo(w)
}

// deadlineBody clears the connection's read deadline once the body is
// read to its end (or closed).
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.clear()
	}
	return n, err
}

func (b *deadlineBody) Close() error {
	b.clear()
	return b.ReadCloser.Close()
}

func (b *deadlineBody) clear() {
	if !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
}
