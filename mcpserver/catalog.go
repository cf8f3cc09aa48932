package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/wiki"
)

// Catalog limits: resources/list holds at most this many of each kind (the
// newest retrievals; notes and pages in their list order). Hosts page the
// list (ServerOptions.PageSize); a larger set is reached through the
// tools (retrieval_log, memory_list, wiki_search) and the templates.
const (
	CatalogRetrievals = 50
	CatalogNotes      = 500
	CatalogPages      = 500
	// catalogPageSize is the resources/list page size.
	catalogPageSize = 100
	// catalogEvery is the least time between two syncs of the list.
	catalogEvery = 2 * time.Second
)

// catalog keeps the concrete resources a user would @-mention — recent
// retrievals, memory notes, wiki pages — in step with the store and the
// workspace. The list is synced when a client lists resources and after a
// tool call that may change it; the SDK sends notifications/resources/
// list_changed to the clients whenever the set changes.
type catalog struct {
	srv  *mcp.Server
	t    *ops.Table
	wiki *wiki.Wiki

	// mu guards pending; syncMu serializes syncs and guards last and have.
	mu      sync.Mutex
	pending int
	syncMu  sync.Mutex
	last    time.Time
	have    map[string]bool
}

// catalogTemplates are the templates that read what the catalog lists.
func catalogTemplates(t *ops.Table) []Resource {
	var out []Resource
	if _, ok := t.Lookup("show_retrieval"); ok {
		out = append(out, Resource{
			Template: &mcp.ResourceTemplate{
				Name: "retrieval", Title: "Recorded retrieval",
				Description: "A ledger entry's full recorded result (show_retrieval), by retrieval_id.",
				MIMEType:    "application/json", URITemplate: "retrieve://retrieval/{id}",
			},
			Handler: opResource(t, "show_retrieval", "retrieve://retrieval/", "retrieval_id"),
		})
	}
	if _, ok := t.Lookup("memory_read"); ok {
		out = append(out, Resource{
			Template: &mcp.ResourceTemplate{
				Name: "memory", Title: "Memory note",
				Description: "A memory note as it is on disk (memory_read), by memory_entry_id.",
				MIMEType:    "application/json", URITemplate: "retrieve://memory/{id}",
			},
			Handler: opResource(t, "memory_read", "retrieve://memory/", "target"),
		})
	}
	return out
}

// opResource reads a resource by running op with the URI's last part as
// the argument arg.
func opResource(t *ops.Table, name, prefix, arg string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		id, ok := strings.CutPrefix(uri, prefix)
		if !ok || id == "" {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		if u, err := url.PathUnescape(id); err == nil {
			id = u
		}
		out, err := handleOp(ctx, t, name, map[string]string{arg: id})
		if err != nil {
			if c := retrieve.ErrorCode(err); c == retrieve.CodeNotFound || c == retrieve.CodeInputValidation || c == retrieve.CodePathNotFound {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			return nil, fmt.Errorf("%s %s: %s", name, id, retrieve.AsError(err).Message)
		}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("%s %s: encode: %w", name, id, err)
		}
		if len(b) > MaxResourceBytes {
			return nil, fmt.Errorf("%s %s is larger than %d bytes: call the %s tool instead", name, id, MaxResourceBytes, name)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
	}
}

// middleware syncs the catalog before a resources/list.
func (c *catalog) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "resources/list" {
			c.sync(ctx, kindsAll, false)
		}
		return next(ctx, method, req)
	}
}

// after schedules a sync of the kinds the call of op may have changed
// (never on the call's own path: the response does not wait for it), by
// the tool handler and the fast path alike. A retrieval that was not
// recorded (no_record, or every result of a retrieve_many) changes no
// kind.
func (c *catalog) after(op *ops.Op, oc ops.Outcome) {
	k := c.changes(op.Name)
	if k == kindRetrievals && !recorded(oc.Value) {
		return
	}
	if k != 0 {
		c.schedule(k)
	}
}

// recorded says whether an op's output may hold a recorded retrieval.
func recorded(v any) bool {
	switch x := v.(type) {
	case *retrieve.Result:
		return x.RetrievalID != ""
	case *ops.ManyOutput:
		for _, r := range x.Results {
			if r != nil && r.RetrievalID != "" {
				return true
			}
		}
		return false
	}
	return true
}

// Kinds of catalog entries, as bits.
const (
	kindRetrievals = 1 << iota
	kindNotes
	kindPages
	kindsAll = kindRetrievals | kindNotes | kindPages
)

// catalogDelay is how long a scheduled sync waits, so that a burst of
// calls costs one sync; a sync of the retrievals alone waits
// catalogEvery: under a steady stream of recorded reads, listing the log
// five times a second cost a tenth of the server's CPU.
const catalogDelay = 200 * time.Millisecond

// changes returns the kinds a call of the tool name may change: a recorded
// retrieval or quote adds a retrieval, a memory or wiki write a note or a
// page.
func (c *catalog) changes(name string) int {
	op, ok := c.t.Lookup(name)
	if !ok {
		return 0
	}
	switch {
	case strings.HasPrefix(op.Name, "retrieve") || op.Name == "check_quote":
		return kindRetrievals
	case op.ReadOnly:
		return 0
	case strings.HasPrefix(op.Name, "memory_"):
		return kindNotes
	case strings.HasPrefix(op.Name, "wiki_"):
		return kindPages
	}
	return 0
}

// schedule runs a sync of kinds after catalogDelay, merged with any sync
// already waiting.
func (c *catalog) schedule(kinds int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending != 0 {
		c.pending |= kinds
		return
	}
	c.pending = kinds
	delay := catalogDelay
	if kinds == kindRetrievals {
		delay = catalogEvery
	}
	time.AfterFunc(delay, func() {
		c.mu.Lock()
		k := c.pending
		c.pending = 0
		c.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c.sync(ctx, k, true)
	})
}

// sync lists the kinds of entries the catalog holds now and adds and
// removes resources so the server's list matches. Unless force, it runs at
// most once per catalogEvery. A kind whose listing fails keeps what it had.
func (c *catalog) sync(ctx context.Context, kinds int, force bool) {
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	if !force && time.Since(c.last) < catalogEvery {
		return
	}
	if kinds == kindsAll {
		c.last = time.Now()
	}
	listers := []struct {
		kind   int
		prefix string
		list   func(context.Context) ([]*mcp.Resource, error)
	}{
		{kindRetrievals, "retrieve://retrieval/", c.retrievals},
		{kindNotes, "retrieve://memory/", c.notes},
		{kindPages, "retrieve://wiki/", c.pages},
	}
	want := map[string]*mcp.Resource{}
	for _, l := range listers {
		owned := func(uri string) bool { return strings.HasPrefix(uri, l.prefix) }
		var rs []*mcp.Resource
		var err error
		if kinds&l.kind != 0 {
			rs, err = l.list(ctx)
		}
		if kinds&l.kind == 0 || err != nil {
			for uri := range c.have {
				if owned(uri) {
					want[uri] = nil // kept as it is
				}
			}
			continue
		}
		for _, r := range rs {
			want[r.URI] = r
		}
	}
	var gone []string
	for uri := range c.have {
		if _, ok := want[uri]; !ok {
			gone = append(gone, uri)
			delete(c.have, uri)
		}
	}
	if len(gone) > 0 {
		c.srv.RemoveResources(gone...)
	}
	for uri, r := range want {
		if r == nil || c.have[uri] {
			continue
		}
		c.have[uri] = true
		c.srv.AddResource(r, c.readerOf(uri))
	}
}

// readerOf is the handler of a listed resource: the template's.
func (c *catalog) readerOf(uri string) mcp.ResourceHandler {
	switch {
	case strings.HasPrefix(uri, "retrieve://retrieval/"):
		return opResource(c.t, "show_retrieval", "retrieve://retrieval/", "retrieval_id")
	case strings.HasPrefix(uri, "retrieve://memory/"):
		return opResource(c.t, "memory_read", "retrieve://memory/", "target")
	default:
		return WikiResource(c.wiki).Handler
	}
}

// handleOp runs the op name of t on in (encoded as JSON), as a tool call
// would, without a transport's budget or metrics.
func handleOp(ctx context.Context, t *ops.Table, name string, in any) (any, error) {
	op, ok := t.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("no %s op", name)
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("%s input: %w", name, err)
	}
	return op.Handle(ctx, raw)
}

// call runs a listing op and decodes its output into out.
func (c *catalog) call(ctx context.Context, name string, in map[string]any, out any) error {
	v, err := handleOp(ctx, c.t, name, in)
	if err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

func (c *catalog) retrievals(ctx context.Context) ([]*mcp.Resource, error) {
	const prefix = "retrieve://retrieval/"
	var out struct {
		Entries []struct {
			ID        string `json:"retrieval_id"`
			Time      string `json:"time"`
			Op        string `json:"op"`
			Target    string `json:"target"`
			Status    string `json:"status"`
			Reference string `json:"reference"`
			Hash      string `json:"hash"`
		} `json:"entries"`
	}
	if err := c.call(ctx, "retrieval_log", map[string]any{"limit": CatalogRetrievals}, &out); err != nil {
		return nil, err
	}
	rs := make([]*mcp.Resource, 0, len(out.Entries))
	for _, e := range out.Entries {
		title := e.Op + " " + e.Target
		desc := fmt.Sprintf("%s at %s", e.Status, e.Time)
		if e.Reference != "" {
			desc = fmt.Sprintf("%s %s (%s) at %s", e.Status, e.Reference, e.Hash, e.Time)
		}
		rs = append(rs, &mcp.Resource{URI: prefix + e.ID, Name: e.ID, Title: title, Description: desc, MIMEType: "application/json"})
	}
	return rs, nil
}

func (c *catalog) notes(ctx context.Context) ([]*mcp.Resource, error) {
	const prefix = "retrieve://memory/"
	var out struct {
		Entries []struct {
			ID    string   `json:"memory_entry_id"`
			Title string   `json:"title"`
			Type  string   `json:"memory_type"`
			Tags  []string `json:"tags"`
		} `json:"entries"`
	}
	if err := c.call(ctx, "memory_list", map[string]any{"limit": CatalogNotes}, &out); err != nil {
		return nil, err
	}
	rs := make([]*mcp.Resource, 0, len(out.Entries))
	for _, n := range out.Entries {
		desc := n.Type + " note"
		if len(n.Tags) > 0 {
			desc += " · " + strings.Join(n.Tags, ", ")
		}
		rs = append(rs, &mcp.Resource{URI: prefix + url.PathEscape(n.ID), Name: n.ID, Title: n.Title, Description: desc, MIMEType: "application/json"})
	}
	return rs, nil
}

func (c *catalog) pages(ctx context.Context) ([]*mcp.Resource, error) {
	const prefix = "retrieve://wiki/"
	if c.wiki == nil {
		return nil, nil
	}
	ps, err := c.wiki.Pages(ctx)
	if err != nil {
		return nil, err
	}
	if len(ps) > CatalogPages {
		ps = ps[:CatalogPages]
	}
	rs := make([]*mcp.Resource, 0, len(ps))
	for _, p := range ps {
		rs = append(rs, &mcp.Resource{URI: prefix + p.Category + "/" + url.PathEscape(p.Slug), Name: p.Category + "/" + p.Slug,
			Title: p.Title, Description: p.Summary, MIMEType: "text/markdown"})
	}
	return rs, nil
}
