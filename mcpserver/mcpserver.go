// Package mcpserver serves an ops.Table as an MCP server on the official Go
// SDK (github.com/modelcontextprotocol/go-sdk): every op becomes a tool
// whose result carries structuredContent (the op's output) and a compact
// text rendering; failures are tool results with isError and
// {code, message, hint}, never protocol errors. Snapshots are resources
// (retrieve://snapshot/sha256:<hex>); recent retrievals, memory notes and
// wiki pages are listed as resources a host can @-mention (catalog.go), and
// the main workflows are prompts (prompts.go).
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/wiki"
)

// MaxResourceBytes caps a resource read; larger snapshots are refused with
// a hint to retrieve a part of them instead.
const MaxResourceBytes = 8 << 20

// Instructions tell a connecting model what the server is for.
const Instructions = `retrieve fetches a known thing from a known place (a file, a line range, a markdown section, a value in JSON/YAML/TOML, a git revision, a URL) with a checkable citation: reference, version, sha256 hash, freshness and confidence.
Use the retrieve tool instead of searching when you know what and where. Check retrieved.complete (false = cut), provenance.freshness and confidence. Call check_quote before quoting a source, and verify_citation before relying on an earlier retrieval; retrieve_many reads several targets at once.
Cite in a form that can be checked: a Markdown link [path:START-END](path:START-END "sha256:<citation.hash>"), or a footnote [^1]: path:START-END sha256:<citation.hash>; put a quotation right before its citation ("exact text" [ref](ref)). Call check_citations with your draft before you send it and fix every finding. Pass your session_id to retrieve and check_quote so the retrieval joins your session's sources.`

// Resource is an extra resource template another package serves (wiki pages).
type Resource struct {
	Template *mcp.ResourceTemplate
	Handler  mcp.ResourceHandler
}

// Options configure a server.
type Options struct {
	// Store serves retrieve://snapshot/ resources; nil serves none.
	Store store.Store
	// Resources are extra resource templates.
	Resources []Resource
	// Stream, when set, writes the large strings of tool results straight
	// to its transport (stdio; see Streamer).
	Stream *Streamer
	// Wiki, when set, lists its pages as resources (and serves them
	// through the wiki template: pass WikiResource(Wiki) in Resources).
	Wiki *wiki.Wiki
}

// New returns an MCP server exposing every op of t as a tool.
func New(t *ops.Table, opts Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "retrieve", Title: "retrieve", Version: retrieve.Version},
		&mcp.ServerOptions{Instructions: Instructions, PageSize: catalogPageSize})
	cat := &catalog{srv: s, t: t, wiki: opts.Wiki, have: map[string]bool{}}
	for _, op := range t.Ops() {
		s.AddTool(Tool(op), handler(t, op, opts.Stream, cat))
	}
	addPrompts(s, t)
	s.AddReceivingMiddleware(aliases(t), cat.middleware)
	if opts.Stream != nil {
		opts.Stream.fast = newFastPath(s, t, cat, opts.Stream)
	}
	for _, r := range catalogTemplates(t) {
		s.AddResourceTemplate(r.Template, r.Handler)
	}
	if opts.Store != nil {
		s.AddResourceTemplate(&mcp.ResourceTemplate{
			Name:        "snapshot",
			Title:       "Snapshot of cited bytes",
			Description: "The exact source bytes a citation's source_hash names, as kept in the evidence store.",
			URITemplate: "retrieve://snapshot/{+hash}",
		}, snapshotHandler(opts.Store))
	}
	for _, r := range opts.Resources {
		s.AddResourceTemplate(r.Template, r.Handler)
	}
	return s
}

// Tool is the MCP tool of op. Its annotations tell the truth: read-only
// ops are idempotent, write ops say whether they may overwrite
// (destructiveHint), and openWorldHint is set only on ops that may reach
// outside the workspace (the web, an API, a database).
func Tool(op *ops.Op) *mcp.Tool {
	ann := &mcp.ToolAnnotations{ReadOnlyHint: op.ReadOnly, IdempotentHint: op.ReadOnly, OpenWorldHint: &op.OpenWorld}
	if !op.ReadOnly {
		ann.DestructiveHint = &op.Destructive
	}
	return &mcp.Tool{
		Name:        op.Name,
		Title:       op.Title,
		Description: op.Description,
		InputSchema: InputSchema(op.Name, op.Input),
		// No outputSchema: structuredContent is sent without one (MCP allows
		// it). The output schemas are docs/result.schema.json and
		// docs/openapi.yaml; repeated in tools/list they cost every agent's
		// context 2.5 KB and tell the model nothing the description does
		// not (docs/servers.md, "The tool list").
		Annotations: ann,
	}
}

// InputSchema is the input schema a tool advertises: the op's, without
// examples (the descriptions say what a value looks like; the full schemas
// with their examples are in docs/openapi.yaml), except for retrieve,
// whose examples show seed 002's nested shape.
func InputSchema(name string, full json.RawMessage) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(full, &m); err != nil {
		panic(fmt.Sprintf("mcpserver: input schema: %v", err))
	}
	if name != "retrieve" {
		delete(m, "examples")
	}
	var strip func(v any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, p := range x {
				if k == "properties" {
					for _, ps := range p.(map[string]any) {
						if pm, ok := ps.(map[string]any); ok {
							delete(pm, "examples")
						}
					}
				}
				strip(p)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(m)
	b, _ := json.Marshal(m)
	return b
}

func handler(t *ops.Table, op *ops.Op, stream *Streamer, cat *catalog) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
			ctx = ops.WithProgress(ctx, progress(ctx, req))
		}
		oc := t.Call(ctx, op, args, "mcp")
		cat.after(op, oc)
		return toolResult(ctx, oc, stream, noBatches(req)), nil
	}
}

// toolResult is the tool result of a call's outcome: with placeholders
// the Streamer expands when it writes the response (streamed: the session
// cannot send batches), or with the call's encoding as structuredContent.
func toolResult(ctx context.Context, oc ops.Outcome, stream *Streamer, streamed bool) *mcp.CallToolResult {
	if stream != nil && streamed {
		return stream.deferred(ctx, oc)
	}
	var structured any = oc.Value
	if raw, ok := oc.Encoded.Raw(); ok && oc.Value != nil {
		structured = raw // the call's encoding, not a second one
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: oc.Text + oc.TextData}},
		StructuredContent: structured,
		IsError:           oc.Err != nil,
	}
}

// progress sends a long call's progress (graph_verify, graph_forget,
// memory_forget) as notifications/progress when the client asked for it
// with a progress token; nil otherwise. A notification that cannot be sent
// does not stop the call.
func progress(ctx context.Context, req *mcp.CallToolRequest) ops.Progress {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil
	}
	return func(done, total int, message string) {
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
			Progress: float64(done), Total: float64(total), Message: message})
	}
}

// aliases lets tools/call name a tool by a former name (ops.Op.Aliases):
// clients with hard-coded names keep working, and the list stays lean.
func aliases(t *ops.Table) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if c, ok := req.(*mcp.CallToolRequest); ok && c.Params != nil {
				if op, ok := t.Lookup(c.Params.Name); ok && op.Name != c.Params.Name {
					c.Params.Name = op.Name
				}
			}
			return next(ctx, method, req)
		}
	}
}

func snapshotHandler(st store.Store) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		hash, ok := strings.CutPrefix(uri, "retrieve://snapshot/")
		if !ok || hash == "" {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		if !strings.HasPrefix(hash, "sha256:") {
			hash = "sha256:" + hash
		}
		rc, err := st.OpenSnapshot(ctx, hash)
		if err != nil {
			if retrieve.ErrorCode(err) == retrieve.CodeNotFound {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			return nil, fmt.Errorf("snapshot %s: %s", hash, retrieve.AsError(err).Message)
		}
		defer rc.Close()
		b, err := io.ReadAll(io.LimitReader(rc, MaxResourceBytes+1))
		if err != nil {
			return nil, fmt.Errorf("read snapshot %s: %w", hash, err)
		}
		if len(b) > MaxResourceBytes {
			return nil, fmt.Errorf("snapshot %s is larger than %d bytes: call the retrieve tool with lines or max_bytes on its reference instead", hash, MaxResourceBytes)
		}
		c := &mcp.ResourceContents{URI: uri}
		if utf8.Valid(b) {
			c.MIMEType, c.Text = "text/plain; charset=utf-8", string(b)
		} else {
			c.MIMEType, c.Blob = "application/octet-stream", b
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
	}
}

// WikiResource serves wiki pages as retrieve://wiki/<category>/<slug>.
func WikiResource(w *wiki.Wiki) Resource {
	return Resource{
		Template: &mcp.ResourceTemplate{
			Name:        "wiki",
			Title:       "Wiki page",
			Description: "A page of the workspace wiki, by category (entity, summary or topic) and slug.",
			MIMEType:    "text/markdown",
			URITemplate: "retrieve://wiki/{category}/{slug}",
		},
		Handler: func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			uri := req.Params.URI
			rest, ok := strings.CutPrefix(uri, "retrieve://wiki/")
			cat, slug, ok2 := strings.Cut(rest, "/")
			if !ok || !ok2 || cat == "" || slug == "" {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			// A URI carries a slug in another script percent-encoded
			// (retrieve://wiki/entity/%E5%86%85…); the raw letters work too.
			if u, err := url.PathUnescape(slug); err == nil {
				slug = u
			}
			p, err := w.Read(ctx, wiki.ReadInput{Slug: slug, Category: cat})
			if err != nil {
				if c := retrieve.ErrorCode(err); c == retrieve.CodeNotFound || c == retrieve.CodeInputValidation {
					return nil, mcp.ResourceNotFoundError(uri)
				}
				return nil, fmt.Errorf("wiki page %s/%s: %s", cat, slug, retrieve.AsError(err).Message)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: p.Content}}}, nil
		},
	}
}
