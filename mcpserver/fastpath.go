package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/ops"
)

// The fast path of the streamable HTTP transport (Streamer.Handler). The
// SDK's way through a tools/call costs about four times the call itself: it
// decodes the message three or four times (each through a streaming decoder
// with a zeroed 32 KiB buffer), hands it to the session's goroutines over
// channels, and routes the response back through its stream tables
// (docs/servers.md, "Tests and benchmarks"). A tools/call of a read-only
// tool on an initialized session, in the plainest form a client sends it,
// is answered here instead: decoded once, the op called as the SDK's tool
// handler calls it, and the response written as the SDK writes it — the
// same headers, the same SSE event, the JSON-RPC response encoded by the
// SDK's own encoder from the same tool result (TestFastPathSameBytes
// compares the two). Anything else — another method, a batch, a _meta
// (progress token), a write tool, an unknown tool, an older protocol, an
// unknown or stale session, a header the SDK would refuse — goes to the
// SDK unchanged.
//
// Sessions stay the SDK's: a session is served here only once the SDK has
// answered a POST of it (so it exists and is initialized), and only while
// the SDK has seen one of its POSTs within fastFresh: every fastFresh a
// call goes the SDK's way, which keeps the SDK's idle timer running from a
// recent request (the session closes up to fastFresh before the 30 minutes
// after its last call, instead of exactly then). A DELETE forgets the
// session before the SDK closes it; a session the SDK closes otherwise is
// forgotten as it ends (its Wait returns) and its calls here are canceled.
// A notifications/cancelled for a call in flight here cancels it (and still
// goes to the SDK, which ignores an id it does not know). Like the SDK, a
// call whose id is already in flight on its session is refused; a call in
// flight here and one in flight in the SDK with the same id are not
// compared.
type fastPath struct {
	srv    *mcp.Server
	t      *ops.Table
	cat    *catalog
	stream *Streamer

	mu       sync.Mutex
	sessions map[string]*fastSession

	// off sends everything to the SDK (tests compare the two ways).
	off atomic.Bool
	// served counts the calls answered here.
	served atomic.Int64
}

// fastFresh is how long after the SDK last answered a POST of a session
// its calls may take the fast path.
var fastFresh = 10 * time.Second

// fastMaxBody is the largest request body the fast path reads (a larger
// one, or one of unknown length, goes to the SDK as it came).
const fastMaxBody = 64 << 10

type fastSession struct {
	ss *mcp.ServerSession
	// batches: the client asked for a protocol before 2025-06-18, whose
	// results are not streamed (noBatches): the SDK answers all its calls.
	batches bool
	sdkAt   atomic.Int64 // unix ns: the end of the last POST the SDK answered

	mu     sync.Mutex
	calls  map[string]context.CancelFunc // in flight here, by the id's JSON
	closed bool
}

func newFastPath(srv *mcp.Server, t *ops.Table, cat *catalog, stream *Streamer) *fastPath {
	return &fastPath{srv: srv, t: t, cat: cat, stream: stream, sessions: map[string]*fastSession{}}
}

// handle serves r, on the fast path when it can, else through the SDK's
// handler h.
func (f *fastPath) handle(h http.Handler, w *expandingWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" || (r.Method != http.MethodPost && r.Method != http.MethodDelete) {
		h.ServeHTTP(w, r)
		return
	}
	if r.Method == http.MethodDelete {
		f.forget(sid)
		h.ServeHTTP(w, r)
		return
	}
	body, ok := readSmallBody(r)
	if ok && f.serve(w, r, sid, body) {
		return
	}
	if ok {
		f.cancelled(sid, body)
	}
	h.ServeHTTP(w, r)
	if w.status < 300 {
		f.refresh(sid)
	}
}

// readSmallBody reads a body of known length up to fastMaxBody and puts
// its bytes back for the SDK.
func readSmallBody(r *http.Request) ([]byte, bool) {
	if r.Body == nil || r.ContentLength <= 0 || r.ContentLength > fastMaxBody {
		return nil, false
	}
	body := make([]byte, r.ContentLength)
	n, err := io.ReadFull(r.Body, body)
	rest := r.Body
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body[:n]), rest), rest}
	return body, err == nil
}

// serve answers the call in body and reports true, or reports false
// without writing anything: the SDK must answer it.
func (f *fastPath) serve(w *expandingWriter, r *http.Request, sid string, body []byte) bool {
	if f.off.Load() {
		return false
	}
	// The checks the SDK makes before it reads a message (ServeHTTP,
	// serveStatefulPOST, servePOST): what fails one goes to the SDK, which
	// answers with its error.
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "2025-06-18" && v != "2025-11-25" {
		return false
	}
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || ct != "application/json" {
		return false
	}
	if jsonOK, streamOK := accepts(r.Header.Values("Accept")); !jsonOK || !streamOK {
		return false
	}
	if len(r.Header.Values("Last-Event-ID")) > 0 {
		return false
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil && isLoopback(local.String()) && !isLoopback(r.Host) {
		return false // the SDK's DNS rebinding protection refuses it
	}
	fs := f.session(sid)
	if fs == nil || fs.batches || time.Since(time.Unix(0, fs.sdkAt.Load())) > fastFresh {
		return false
	}
	c, ok := parseCall(body)
	if !ok {
		return false
	}
	op, ok := f.t.Lookup(c.name)
	if !ok || !op.ReadOnly {
		return false
	}
	id, err := jsonrpc.MakeID(c.id)
	if err != nil {
		return false
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	defer cancel()
	if !fs.start(string(c.rawID), cancel) {
		if fs.isClosed() {
			return false // the SDK answers that the session is gone
		}
		// As the SDK answers a call whose id is in flight.
		writeJSONRPCError(w, http.StatusBadRequest, id, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("duplicate in-flight request ID %v", id.Raw())})
		f.served.Add(1)
		return true
	}
	defer fs.end(string(c.rawID))
	f.served.Add(1)
	oc := f.t.Call(ctx, op, c.args, "mcp")
	f.cat.after(op, oc)
	h := w.Header()
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Content-Type", "text/event-stream")
	h.Set("Connection", "keep-alive")
	// The SDK flushes the event, then ends the response: the body is sent
	// in two writes (the event's chunk, then the last chunk). Here the
	// event is the whole response: chunked as the SDK's (no
	// Content-Length, even on a small body), and sent in one write when
	// the handler returns.
	h.Set("Transfer-Encoding", "chunked")
	bw := getWriter(w.ResponseWriter)
	defer putWriter(bw)
	_, _ = bw.WriteString("event: message\ndata: ")
	if ts, err := templates(); err == nil && oc.Value != nil && oc.Encoded != nil {
		_ = writeResponse(bw, ts, id, oc)
	} else {
		// The SDK's way, with its encoders: the tool result (the
		// handler's) encoded by jsonrpc2's marshalToRaw (encoding/json
		// without HTML escaping), then the response by EncodeMessage.
		res := toolResult(ctx, oc, f.stream, true)
		raw, err := marshalNoHTML(res)
		resp := &jsonrpc.Response{ID: id, Result: raw}
		if err != nil {
			resp = &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}}
		}
		data, err := jsonrpc.EncodeMessage(resp)
		if err != nil {
			data, _ = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}})
		}
		_ = f.stream.expand(bw, data)
	}
	_, _ = bw.WriteString("\n\n")
	_ = bw.Flush()
	return true
}

// A responseTemplate is the SDK's encoding of the response to a tools/call
// whose result is a text block and structuredContent, cut where the id,
// the text and the structured content go: the SDK's encoders run once per
// process on placeholders, and a call writes its values between the
// parts, escaped as the SDK escapes them (the text as encoding/json
// escapes a string, HTML included; structuredContent is the call's
// encoding, made with the same escaping). TestFastPathSameBytes compares
// the result with the SDK's own response.
type responseTemplate struct {
	beforeID, beforeText, beforeValue, after []byte
}

var templates = sync.OnceValues(func() ([2]responseTemplate, error) {
	var ts [2]responseTemplate
	for i, isError := range []bool{false, true} {
		const idMark, textMark, valueMark = "@@retrieve-id@@", "@@retrieve-text@@", "@@retrieve-value@@"
		id, err := jsonrpc.MakeID(idMark)
		if err != nil {
			return ts, err
		}
		raw, err := marshalNoHTML(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: textMark}},
			StructuredContent: json.RawMessage(`"` + valueMark + `"`), IsError: isError})
		if err != nil {
			return ts, err
		}
		b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: raw})
		if err != nil {
			return ts, err
		}
		cut := func(mark string) []byte {
			before, rest, ok := bytes.Cut(b, []byte(mark))
			if !ok {
				err = fmt.Errorf("mcpserver: no %s in the SDK's response %s", mark, b)
			}
			b = rest
			return before
		}
		ts[i].beforeID = cut(`"` + idMark + `"`)
		ts[i].beforeText = cut(textMark)
		ts[i].beforeValue = cut(`"` + valueMark + `"`)
		ts[i].after = b
		if err != nil {
			return ts, err
		}
	}
	return ts, nil
})

// writeResponse writes the SDK's response to call id whose outcome is oc
// (its Value and Encoded set) from the template.
func writeResponse(w *bufio.Writer, ts [2]responseTemplate, id jsonrpc.ID, oc ops.Outcome) error {
	t := ts[0]
	if oc.Err != nil {
		t = ts[1]
	}
	_, _ = w.Write(t.beforeID)
	switch v := id.Raw().(type) {
	case int64:
		_, _ = w.WriteString(strconv.FormatInt(v, 10))
	case string:
		_ = w.WriteByte('"')
		_ = ops.WriteJSONStringBody(w, v, true)
		_ = w.WriteByte('"')
	default:
		return fmt.Errorf("mcpserver: call id %v", v)
	}
	_, _ = w.Write(t.beforeText)
	_ = ops.WriteJSONStringBody(w, oc.Text, true)
	_ = ops.WriteJSONStringBody(w, oc.TextData, true)
	_, _ = w.Write(t.beforeValue)
	if err := oc.Encoded.WriteValue(w); err != nil {
		return err
	}
	_, err := w.Write(t.after)
	return err
}

// writeJSONRPCError is the SDK's (streamable.go): a JSON-RPC error as an
// application/json body with status.
func writeJSONRPCError(w http.ResponseWriter, status int, id jsonrpc.ID, jerr *jsonrpc.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: jerr}); err == nil {
		_, _ = w.Write(data)
	}
}

// marshalNoHTML is jsonrpc2's jsonMarshal: json.Marshal without HTML
// escaping.
func marshalNoHTML(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// accepts is the SDK's streamableAccepts.
func accepts(values []string) (jsonOK, streamOK bool) {
	for _, value := range values {
		for _, raw := range strings.Split(value, ",") {
			base, _, _ := strings.Cut(strings.TrimSpace(raw), ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK, streamOK
}

// isLoopback is the SDK's util.IsLoopback.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// fastCall is a tools/call in the form the fast path takes.
type fastCall struct {
	id    any // float64 or string, as the SDK decodes it
	rawID json.RawMessage
	name  string
	args  json.RawMessage
}

// parseCall decodes body when it is exactly {"jsonrpc":"2.0","id":ID,
// "method":"tools/call","params":{"name":NAME[,"arguments":{...}]}} in any
// key order: ID an integer of at most 15 digits (a float64 holds it
// exactly, as the SDK decodes it) or a string of letters, digits and
// -_.: (encoded back as it came). Any other member — _meta above all, or
// a key in another case, which encoding/json would match — and it reports
// false. A repeated key: the last one counts, as in the SDK's decoding.
func parseCall(body []byte) (fastCall, bool) {
	var c fastCall
	msg, ok := members(body, "jsonrpc", "id", "method", "params")
	if !ok || string(msg["jsonrpc"]) != `"2.0"` || string(msg["method"]) != `"tools/call"` {
		return c, false
	}
	switch id := msg["id"]; {
	case plainInt(id):
		var n float64
		if json.Unmarshal(id, &n) != nil {
			return c, false
		}
		c.id = n
	case len(id) >= 2 && id[0] == '"' && id[len(id)-1] == '"' && plainString(id[1:len(id)-1]):
		c.id = string(id[1 : len(id)-1])
	default:
		return c, false
	}
	c.rawID = msg["id"]
	params, ok := members(msg["params"], "name", "arguments")
	if !ok || params["name"] == nil || json.Unmarshal(params["name"], &c.name) != nil || c.name == "" {
		return c, false
	}
	if a, ok := params["arguments"]; ok {
		if len(a) == 0 || a[0] != '{' {
			return c, false
		}
		c.args = a
	}
	return c, true
}

// members decodes the JSON object b, whose keys must be among keys
// (spelled exactly).
func members(b []byte, keys ...string) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &m) != nil {
		return nil, false
	}
	n := 0
	for _, k := range keys {
		if _, ok := m[k]; ok {
			n++
		}
	}
	return m, n == len(m)
}

func plainInt(b []byte) bool {
	s := b
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 15 || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func plainString(b []byte) bool {
	if len(b) == 0 || len(b) > 128 {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

// session returns the fast path's record of the session sid, nil if it
// has none.
func (f *fastPath) session(sid string) *fastSession {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[sid]
}

// refresh notes that the SDK has just answered a POST of session sid
// with success: the session exists, and once initialized (with a protocol
// that has no batches, as the streamed results need: noBatches) the fast
// path may serve it. A session is looked up among the server's once.
func (f *fastPath) refresh(sid string) {
	fs := f.session(sid)
	if fs == nil {
		var ss *mcp.ServerSession
		for s := range f.srv.Sessions() {
			if s.ID() == sid {
				ss = s
				break
			}
		}
		if ss == nil {
			return
		}
		p := ss.InitializeParams()
		if p == nil {
			return // not initialized yet
		}
		f.mu.Lock()
		if fs = f.sessions[sid]; fs == nil {
			fs = &fastSession{ss: ss, batches: p.ProtocolVersion < "2025-06-18", calls: map[string]context.CancelFunc{}}
			f.sessions[sid] = fs
			go f.watch(sid, fs)
		}
		f.mu.Unlock()
	}
	fs.sdkAt.Store(time.Now().UnixNano())
}

// watch forgets the session when the SDK closes it.
func (f *fastPath) watch(sid string, fs *fastSession) {
	_ = fs.ss.Wait()
	f.forget(sid)
}

// forget drops the session sid and cancels its calls in flight here.
func (f *fastPath) forget(sid string) {
	f.mu.Lock()
	fs := f.sessions[sid]
	delete(f.sessions, sid)
	f.mu.Unlock()
	if fs == nil {
		return
	}
	fs.mu.Lock()
	fs.closed = true
	for _, cancel := range fs.calls {
		cancel()
	}
	fs.mu.Unlock()
}

// cancelled cancels the call a notifications/cancelled in body names, if
// it is in flight here.
func (f *fastPath) cancelled(sid string, body []byte) {
	if !bytes.Contains(body, []byte("notifications/cancelled")) {
		return
	}
	fs := f.session(sid)
	if fs == nil {
		return
	}
	var n struct {
		Method string `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &n) != nil || n.Method != "notifications/cancelled" {
		return
	}
	fs.mu.Lock()
	cancel := fs.calls[string(n.Params.RequestID)]
	fs.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// start records a call in flight under its id; false if the id is in
// flight already or the session is closed.
func (fs *fastSession) start(id string, cancel context.CancelFunc) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if _, dup := fs.calls[id]; dup || fs.closed {
		return false
	}
	fs.calls[id] = cancel
	return true
}

func (fs *fastSession) end(id string) {
	fs.mu.Lock()
	delete(fs.calls, id)
	fs.mu.Unlock()
}

func (fs *fastSession) isClosed() bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.closed
}
