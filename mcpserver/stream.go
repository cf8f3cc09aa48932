package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/ops"
)

// StreamMin is the size from which a result's data is escaped straight
// from its string to the transport, never copied whole (ops.StreamMin).
const StreamMin = ops.StreamMin

// A Streamer writes tool results to the transport encoded once: the
// result's structuredContent as the call encoded it (ops.Outcome.Encoded,
// which its budget counted) and its text block escaped straight from its
// parts, instead of letting the SDK encode them: the SDK would encode the
// result (and each content block, and re-validate each nested encoding),
// then the JSON-RPC response around it, each a full copy of a message that
// holds the data twice (text block and structuredContent). The tool
// handler hands the SDK a result whose text and structuredContent are
// placeholder strings (random per process, unguessable); Transport's
// connection recognises them in the encoded response and writes each
// value in its place. The message on the wire is byte for byte what the
// SDK would have sent. A large result's data is never copied whole: it is
// escaped from its string as it is written.
//
// Over stdio, Transport wraps the connection. Over the streamable HTTP
// transport, whose connection the SDK keeps to itself, Handler wraps the
// SDK's handler and expands the placeholders as the SDK writes the
// response body (one Write per message, an SSE event or a JSON body). A
// session whose client asked for a protocol that allows JSON-RPC batches
// (before 2025-06-18) is not streamed: its responses may have to be joined
// into a batch by the SDK.
type Streamer struct {
	w      *lockedWriter
	prefix string // "retrieve-stream-<hex>-"
	next   atomic.Uint64

	mu    sync.Mutex
	held  map[string]held
	count atomic.Int64 // len(held), read without the lock

	// fast answers the plainest tools/call of a read tool on the
	// streamable HTTP transport without the SDK (fastpath.go); set by New.
	fast *fastPath
}

// held is what a placeholder stands for: the parts of a JSON string,
// written one after the other inside its quotes, or a whole JSON value,
// written in place of the quoted placeholder.
type held struct {
	parts []string
	value *ops.Encoded
}

// heldAfter is how long a string is kept once its call is over (the SDK
// ends a call's context after writing its response, or after dropping it):
// a response that is never written does not pin its data.
var heldAfter = time.Minute

// NewStreamer returns a Streamer writing to w. Give Writer() to the
// IOTransport and wrap that transport with Transport.
func NewStreamer(w io.Writer) *Streamer {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return &Streamer{w: &lockedWriter{w: w}, prefix: "retrieve-stream-" + hex.EncodeToString(b[:]) + "-", held: map[string]held{}}
}

// Writer is the writer the IOTransport must write to: the streamer's
// writes and the SDK's never interleave.
func (s *Streamer) Writer() io.Writer { return s.w }

// Transport wraps the stdio transport whose writer is Writer().
func (s *Streamer) Transport(inner mcp.Transport) mcp.Transport {
	return &streamTransport{inner: inner, s: s}
}

// hold keeps hs for the response of the call whose context is ctx, and
// returns the placeholders that stand for them in the result, one each.
func (s *Streamer) hold(ctx context.Context, hs ...held) []string {
	toks := make([]string, len(hs))
	s.mu.Lock()
	for i, h := range hs {
		toks[i] = s.prefix + strconv.FormatUint(s.next.Add(1), 10)
		s.held[toks[i]] = h
	}
	s.count.Store(int64(len(s.held)))
	s.mu.Unlock()
	context.AfterFunc(ctx, func() {
		if !s.holding(toks) {
			return // written: nothing to let go
		}
		time.AfterFunc(heldAfter, func() {
			for _, tok := range toks {
				s.take(tok)
			}
		})
	})
	return toks
}

// holding reports whether any of toks is still held.
func (s *Streamer) holding(toks []string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, tok := range toks {
		if _, ok := s.held[tok]; ok {
			return true
		}
	}
	return false
}

func (s *Streamer) take(tok string) (held, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.held[tok]
	delete(s.held, tok)
	s.count.Store(int64(len(s.held)))
	return h, ok
}

// deferred is the tool result of oc with placeholders for its text block
// (its header and its data string, never joined) and its structuredContent
// (the encoding the call made).
func (s *Streamer) deferred(ctx context.Context, oc ops.Outcome) *mcp.CallToolResult {
	res := &mcp.CallToolResult{StructuredContent: oc.Value, IsError: oc.Err != nil}
	hs := []held{{parts: []string{oc.Text, oc.TextData}}}
	if oc.Encoded != nil && oc.Value != nil {
		hs = append(hs, held{value: oc.Encoded})
	}
	toks := s.hold(ctx, hs...)
	res.Content = []mcp.Content{&mcp.TextContent{Text: toks[0]}}
	if len(toks) > 1 {
		res.StructuredContent = toks[1]
	}
	return res
}

// noBatches says whether the call's session cannot send JSON-RPC batches:
// its client asked for protocol 2025-06-18 or later (the SDK refuses
// batches from then on).
func noBatches(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	p := req.Session.InitializeParams()
	return p != nil && p.ProtocolVersion >= "2025-06-18"
}

type streamTransport struct {
	inner mcp.Transport
	s     *Streamer
}

func (t *streamTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &streamConn{Connection: c, s: t.s}, nil
}

type streamConn struct {
	mcp.Connection
	s *Streamer
}

func (c *streamConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || c.s.count.Load() == 0 || !bytes.Contains(resp.Result, []byte(c.s.prefix)) {
		return c.Connection.Write(ctx, msg)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.s.w.locked(func(w io.Writer) error {
		bw := getWriter(w)
		defer putWriter(bw)
		if err := c.s.expand(bw, b); err != nil {
			return err
		}
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// writers are the buffers a message is expanded through.
var writers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 64<<10) }}

func getWriter(w io.Writer) *bufio.Writer {
	bw := writers.Get().(*bufio.Writer)
	bw.Reset(w)
	return bw
}

func putWriter(bw *bufio.Writer) {
	bw.Reset(nil)
	writers.Put(bw)
}

// expand writes the encoded message b with each placeholder replaced by
// what it holds: a JSON string's parts inside its quotes, or a JSON value
// in place of the quoted placeholder.
func (s *Streamer) expand(w *bufio.Writer, b []byte) error {
	quoted := []byte(`"` + s.prefix)
	for {
		i := bytes.Index(b, quoted)
		if i < 0 {
			_, err := w.Write(b)
			return err
		}
		end := bytes.IndexByte(b[i+1:], '"')
		if end < 0 {
			return fmt.Errorf("mcpserver: unterminated stream placeholder")
		}
		tok := string(b[i+1 : i+1+end])
		h, ok := s.take(tok)
		if !ok {
			return fmt.Errorf("mcpserver: stream placeholder %s holds nothing (expired?)", tok)
		}
		if h.value != nil {
			if _, err := w.Write(b[:i]); err != nil { // up to the opening quote
				return err
			}
			if err := h.value.WriteValue(w); err != nil {
				return err
			}
			b = b[i+1+end+1:] // past the closing quote
			continue
		}
		if _, err := w.Write(b[:i+1]); err != nil { // up to the opening quote
			return err
		}
		for _, p := range h.parts {
			if err := ops.WriteJSONStringBody(w, p, true); err != nil {
				return err
			}
		}
		b = b[i+1+end:] // from the closing quote
	}
}

// lockedWriter serialises the SDK's writes (one Write per message) and the
// streamer's (several per message).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) locked(f func(io.Writer) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return f(l.w)
}

// Handler wraps the SDK's streamable HTTP handler for the server built
// with this Streamer: a response body write that holds placeholders is
// written with each placeholder replaced by its string. The SDK sets no
// Content-Length on these responses (SSE events or a JSON body written
// once), so the longer body needs no other change.
func (s *Streamer) Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ew := &expandingWriter{ResponseWriter: w, s: s, status: http.StatusOK}
		if s.fast != nil {
			s.fast.handle(h, ew, r) // fastpath.go
			return
		}
		h.ServeHTTP(ew, r)
	})
}

type expandingWriter struct {
	http.ResponseWriter
	s      *Streamer
	status int // as written (200 until WriteHeader)
}

func (e *expandingWriter) WriteHeader(code int) {
	e.status = code
	e.ResponseWriter.WriteHeader(code)
}

func (e *expandingWriter) Write(p []byte) (int, error) {
	if e.s.count.Load() == 0 || !bytes.Contains(p, []byte(e.s.prefix)) {
		return e.ResponseWriter.Write(p)
	}
	bw := getWriter(e.ResponseWriter)
	defer putWriter(bw)
	if err := e.s.expand(bw, p); err != nil {
		return 0, err
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush and Unwrap keep the SDK's flushes of SSE events working
// (http.NewResponseController).
func (e *expandingWriter) Flush() {
	if f, ok := e.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (e *expandingWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }
