package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/httpapi"
	"github.com/retrieve-dev/retrieve/mcpserver"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/ui"
	"github.com/spf13/cobra"
)

// serveOptions are the flags of `retrieve serve`.
type serveOptions struct {
	Global       *globalOptions
	Stdio        bool
	HTTP         string
	AllowOrigins []string
	AllowHosts   []string
	MaxBody      int64
	MaxMessage   int
	Timeout      time.Duration
	Drain        time.Duration
	Budget       int
	MaxBudget    int
	Tools        []string
	Toolsets     []string
	ReadOnly     bool
	// ready is what /readyz asks: the store answers.
	ready func(ctx context.Context) error
	// Listening, when set, is called with the base URL once the HTTP
	// server listens (retrieve ui prints and opens it).
	Listening func(base string)
}

func newServeCmd(io *Streams, g *globalOptions) *cobra.Command {
	opts := &serveOptions{Global: g}
	cmd := &cobra.Command{
		Use:   "serve (--stdio | --http ADDR)",
		Short: "Serve the operations over MCP (stdio or streamable HTTP) and an HTTP JSON API",
		Long: `serve exposes retrieve, verify, quote, log and show (and every operation added
later) as MCP tools and, with --http, as a JSON API under /v1/.

--stdio speaks MCP on stdin/stdout (what MCP clients launch).
--http ADDR serves MCP (streamable HTTP) at /mcp, the JSON API at /v1/, and
/healthz, /readyz, /metrics and /openapi.yaml. ADDR must be a loopback
address unless RETRIEVE_TOKEN is set in the environment; with a token every
/mcp, /v1/ and /metrics request needs "Authorization: Bearer <token>".
SIGINT/SIGTERM drain the requests in flight before exiting. See docs/servers.md.`,
		Example: `  retrieve serve --stdio
  retrieve serve --http 127.0.0.1:8765
  RETRIEVE_TOKEN=$(openssl rand -hex 32) retrieve serve --http 0.0.0.0:8765`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(cmd.Context(), io, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.Stdio, "stdio", false, "serve MCP over stdin/stdout")
	f.StringVar(&opts.HTTP, "http", "", "serve MCP at /mcp and the JSON API at /v1/ on this address (127.0.0.1:8765)")
	f.StringArrayVar(&opts.AllowOrigins, "allow-origin", nil, "a browser Origin allowed besides loopback ones (repeatable)")
	f.StringArrayVar(&opts.AllowHosts, "allow-host-header", nil, "a Host name accepted on a loopback listener besides loopback ones, e.g. a local proxy's (repeatable)")
	f.Int64Var(&opts.MaxBody, "max-body", httpapi.DefaultMaxBody, "HTTP request body cap in bytes")
	f.IntVar(&opts.MaxMessage, "max-message", mcp.DefaultMaxLineLength, "stdio: largest inbound MCP message in bytes")
	f.DurationVar(&opts.Timeout, "timeout", httpapi.DefaultTimeout, "per-request time limit")
	f.DurationVar(&opts.Drain, "drain", 30*time.Second, "on shutdown, how long to wait for requests in flight")
	f.IntVar(&opts.Budget, "budget", ops.DefaultBudget, "message budget in bytes: a tool result or /v1 response larger than this is cut into parts (next reference, next_cursor)")
	f.StringSliceVar(&opts.Tools, "tools", nil, "serve only these tools, over MCP and HTTP (comma-separated names, e.g. retrieve,retrieve_many,check_quote; env RETRIEVE_TOOLS)")
	f.StringSliceVar(&opts.Toolsets, "toolsets", nil, "the MCP tool list: these toolsets ("+strings.Join(ops.ToolsetNames(), ", ")+"; default "+strings.Join(ops.DefaultToolsets, ",")+"; env RETRIEVE_TOOLSETS)")
	f.BoolVar(&opts.ReadOnly, "read-only", false, "serve only the tools that change nothing, over MCP and HTTP (write tools are not listed at all; env RETRIEVE_READ_ONLY=1)")
	f.IntVar(&opts.MaxBudget, "max-budget", ops.DefaultMaxBudget, "the largest budget a call may ask for (its budget argument)")
	cmd.MarkFlagsMutuallyExclusive("stdio", "http")
	return cmd
}

// serverTable is the one table of operations every server exposes. Add an
// operation here with one line (t.Add(op) or t.AddAll(pkg ops)) and it is
// an MCP tool and a /v1/ route at once.
func serverTable(a *app, s *services) *ops.Table {
	sessions := a.sessions()
	t := ops.Core(ops.Deps{Engine: a.Engine, Store: a.Store, Join: sessions.Join, Verified: sessions.Verified})
	t.Add(ops.OutlineOp(newOutliner(a)))
	t.AddAll(ops.SessionOps(sessions))
	if s.Memory != nil {
		t.AddAll(ops.MemoryOps(s.Memory))
	}
	if s.Graph != nil {
		t.AddAll(ops.GraphOps(s.Graph))
		t.Add(ops.SummaryOp(s.Graph, s.Memory))
	}
	if s.Wiki != nil {
		t.AddAll(ops.WikiOps(s.Wiki))
	}
	return t
}

func runServe(ctx context.Context, stdio *Streams, opts *serveOptions) error {
	if opts.Stdio == (opts.HTTP != "") {
		return failStartup(stdio, retrieve.Errorf(retrieve.CodeInputValidation, "choose one transport: --stdio or --http ADDR").
			WithHint("retrieve serve --stdio (for an MCP client) or retrieve serve --http 127.0.0.1:8765"))
	}
	token := os.Getenv("RETRIEVE_TOKEN")
	if opts.HTTP != "" && token == "" && !loopbackAddr(opts.HTTP) {
		return failStartup(stdio, retrieve.Errorf(retrieve.CodePermissionDenied, "refusing to serve %s without a token: it is not a loopback address", opts.HTTP).
			WithHint("set RETRIEVE_TOKEN in the environment (export RETRIEVE_TOKEN=$(openssl rand -hex 32)), or bind 127.0.0.1"))
	}
	if opts.HTTP != "" && !loopbackAddr(opts.HTTP) {
		if err := httpapi.CheckToken(token); err != nil {
			return failStartup(stdio, err)
		}
	}
	a, err := openApp(ctx, opts.Global, storeServer)
	if err != nil {
		return failStartup(stdio, err)
	}
	defer a.Close()
	logger := slog.New(slog.NewTextHandler(stdio.ErrOut, &slog.HandlerOptions{Level: slog.LevelInfo}))
	svcs := a.services(ctx, stdio, logger)
	t := serverTable(a, svcs)
	t.Timeout = opts.Timeout
	if opts.Budget == 0 {
		opts.Budget = ops.DefaultBudget
	}
	if opts.MaxBudget == 0 {
		opts.MaxBudget = max(ops.DefaultMaxBudget, opts.Budget)
	}
	if opts.Budget < ops.MinBudget || opts.MaxBudget < opts.Budget {
		return failStartup(stdio, retrieve.Errorf(retrieve.CodeInputValidation, "--budget %d / --max-budget %d: the budget must be at least %d and at most --max-budget", opts.Budget, opts.MaxBudget, ops.MinBudget).
			WithHint("e.g. --budget 40000 --max-budget 1048576"))
	}
	t.Budget = ops.Budget{Default: opts.Budget, Max: opts.MaxBudget}
	if err := toolsFromEnv(opts, os.LookupEnv); err != nil {
		return failStartup(stdio, err)
	}
	// The toolsets shape the MCP tool list (an agent's context); --tools
	// and --read-only restrict what the whole server runs, MCP and HTTP.
	mt, err := t.Select(opts.Toolsets, opts.Tools, opts.ReadOnly)
	if err != nil {
		return failStartup(stdio, err)
	}
	if t, err = t.Select([]string{"all"}, opts.Tools, opts.ReadOnly); err != nil {
		return failStartup(stdio, err)
	}
	if p, ok := a.Store.(store.Pinger); ok {
		opts.ready = p.Ping
	}
	mopts := mcpserver.Options{Store: a.Store}
	if opts.Stdio {
		mopts.Stream = mcpserver.NewStreamer(stdio.Out)
	} else {
		mopts.Stream = mcpserver.NewStreamer(io.Discard) // its Handler wraps /mcp
	}
	if svcs.Wiki != nil {
		mopts.Resources = append(mopts.Resources, mcpserver.WikiResource(svcs.Wiki))
		mopts.Wiki = svcs.Wiki
	}
	srv := mcpserver.New(mt, mopts)
	if opts.Stdio {
		return serveStdio(ctx, stdio, opts, t, srv, mopts.Stream, logger)
	}
	return serveHTTP(ctx, opts, t, srv, mopts.Stream, token, ui.Options{Workspace: a.Root, Wiki: svcs.Wiki, Snapshots: a.Store, Log: uiLogOf(a)}, logger)
}

// serveStdio runs MCP on the process's stdin/stdout. A signal stops
// reading new requests only after the ones in flight are done, so that no
// ledger write is lost.
func serveStdio(ctx context.Context, stdio *Streams, opts *serveOptions, t *ops.Table, srv *mcp.Server, stream *mcpserver.Streamer, logger *slog.Logger) error {
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	go func() {
		select {
		case <-ctx.Done():
			dctx, cancel := context.WithTimeout(context.Background(), opts.Drain)
			_ = t.Drain(dctx)
			cancel()
			stop()
		case <-runCtx.Done():
		}
	}()
	in, _ := stdio.In.(io.ReadCloser)
	if in == nil {
		in = io.NopCloser(stdio.In)
	}
	in = &eofReader{ReadCloser: in, wait: func() {
		// The requests read before the end are being handled: let them
		// start, finish and write their replies before the session ends.
		time.Sleep(50 * time.Millisecond)
		dctx, cancel := context.WithTimeout(context.Background(), opts.Drain)
		_ = t.Drain(dctx)
		cancel()
		time.Sleep(20 * time.Millisecond)
	}}
	tr := &mcp.IOTransport{Reader: in, Writer: nopWriteCloser{stream.Writer()}, MaxLineLength: opts.MaxMessage}
	logger.Debug("serving MCP on stdio")
	err := srv.Run(runCtx, stream.Transport(tr))
	dctx, cancel := context.WithTimeout(context.Background(), opts.Drain)
	defer cancel()
	_ = t.Drain(dctx)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "EOF") {
		return failStartup(stdio, retrieve.Errorf(retrieve.CodeInternal, "the MCP stdio session failed").WithErr(err))
	}
	return nil
}

// eofReader holds back the end of stdin until the calls already read have
// replied: a client that writes its requests and closes stdin (a shell
// pipe, a script) still gets every reply.
type eofReader struct {
	io.ReadCloser
	wait func()
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.ReadCloser.Read(p)
	if err == io.EOF && e.wait != nil {
		e.wait()
		e.wait = nil
	}
	return n, err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func serveHTTP(ctx context.Context, opts *serveOptions, t *ops.Table, srv *mcp.Server, stream *mcpserver.Streamer, token string, uiOpts ui.Options, logger *slog.Logger) error {
	mcpHandler := stream.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute}))
	pages, err := ui.New(t, uiOpts)
	if err != nil {
		return retrieve.Errorf(retrieve.CodeInternal, "cannot build the review pages").WithErr(err)
	}
	h := httpapi.New(t, httpapi.Options{Token: token, MaxBody: opts.MaxBody, Timeout: opts.Timeout, MCP: mcpHandler, UI: pages,
		AllowedOrigins: opts.AllowOrigins, AllowedHosts: opts.AllowHosts, Ready: opts.ready})
	ln, err := net.Listen("tcp", opts.HTTP)
	if err != nil {
		return retrieve.Errorf(retrieve.CodeInputValidation, "cannot listen on %s", opts.HTTP).WithErr(err).
			WithHint("pick a free port, e.g. --http 127.0.0.1:0")
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	base := "http://" + ln.Addr().String()
	logger.Info("serving", "mcp", base+"/mcp", "api", base+"/v1/", "ui", base+ui.Prefix, "auth", token != "")
	if opts.Listening != nil {
		opts.Listening(base)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return retrieve.Errorf(retrieve.CodeInternal, "the HTTP server stopped").WithErr(err)
	case <-ctx.Done():
	}
	logger.Info("shutting down: draining requests in flight")
	h.SetReady(false)
	dctx, cancel := context.WithTimeout(context.Background(), opts.Drain)
	defer cancel()
	if err := hs.Shutdown(dctx); err != nil {
		_ = hs.Close() // open MCP event streams do not end by themselves
	}
	_ = t.Drain(dctx)
	logger.Info("stopped")
	return nil
}

// loopbackAddr reports whether a listen address binds loopback only.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// toolsFromEnv fills the tool selection from RETRIEVE_TOOLSETS,
// RETRIEVE_TOOLS and RETRIEVE_READ_ONLY where no flag set it (hosts that
// launch the server pass environment more easily than arguments).
func toolsFromEnv(opts *serveOptions, lookup func(string) (string, bool)) error {
	split := func(v string) []string {
		var out []string
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	if v, ok := lookup("RETRIEVE_TOOLSETS"); ok && len(opts.Toolsets) == 0 {
		opts.Toolsets = split(v)
	}
	if v, ok := lookup("RETRIEVE_TOOLS"); ok && len(opts.Tools) == 0 {
		opts.Tools = split(v)
	}
	if v, ok := lookup("RETRIEVE_READ_ONLY"); ok && !opts.ReadOnly && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return retrieve.Errorf(retrieve.CodeInputValidation, "RETRIEVE_READ_ONLY=%q is not a boolean", v).WithHint("set it to 1 or 0")
		}
		opts.ReadOnly = b
	}
	return nil
}
