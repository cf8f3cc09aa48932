package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/pflag"
)

// addWebFlags registers the flags of the web and api sources on `get`.
func addWebFlags(f *pflag.FlagSet, opts *getOptions) {
	w := &opts.Request.Web
	f.BoolVar(&opts.Request.Constraints.Raw, "raw", false, "web: convert the whole HTML page to Markdown, not only its main content")
	f.StringVar(&w.MaxAge, "max-age", "", "web: serve a snapshot younger than this (10m, 24h) without any request")
	f.BoolVar(&w.IgnoreRobots, "ignore-robots", false, "web: do not consult robots.txt (the result says so)")
	f.StringArrayVar(&w.AllowHosts, "allow-host", nil, "web/api: let the address guard reach this host or prefix (127.0.0.1, localhost); repeatable")
	f.StringArrayVar(&w.Headers, "header", nil, "api: request header 'Name: value'; write secrets as ${env:NAME}; repeatable")
	f.StringVar(&w.Method, "method", "", "api: GET (default) or HEAD")
	f.IntVar(&w.Pages, "pages", 0, `api: follow Link rel="next" up to this many pages`)
	f.StringVar(&opts.Batch, "batch", "", "read more targets from this file, one per line (- for stdin); # starts a comment")
}

// retrieveTargets runs the targets of `get` (arguments, then the --batch
// file) concurrently, with a progress bar on a terminal for a batch.
func retrieveTargets(ctx context.Context, streams *Streams, app *app, opts *getOptions) ([]getOutcome, error) {
	if opts.Batch != "" {
		more, err := readBatch(streams.In, opts.Batch)
		if err != nil {
			return nil, err
		}
		if len(opts.Targets)+len(more) == 0 {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "the batch file %s names no target", opts.Batch).
				WithHint("write one target per line; lines starting with # are comments")
		}
		opts.Targets = append(opts.Targets, more...)
	}
	var bar *progressbar.ProgressBar
	if streams.ErrTTY && len(opts.Targets) > 8 {
		bar = progressbar.NewOptions(len(opts.Targets), progressbar.OptionSetWriter(streams.ErrOut),
			progressbar.OptionSetDescription("retrieving"), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
		defer func() { _ = bar.Finish() }()
	}
	return retrieveAll(ctx, app.Engine, opts.Request, opts.Targets, app.Config.Web.Concurrency, func() {
		if bar != nil {
			_ = bar.Add(1)
		}
	}), nil
}

// readBatch reads targets from a file (or in for "-"), one per line.
func readBatch(in io.Reader, name string) ([]string, error) {
	r := in
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, retrieve.Errorf(retrieve.CodePathNotFound, "cannot open the batch file %s", name).WithErr(err).
				WithHint("pass a file with one target per line")
		}
		defer f.Close()
		r = f
	}
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "cannot read the batch file %s", name).WithErr(err)
	}
	return out, nil
}

type getOutcome struct {
	res *retrieve.Result
	err error
}

// retrieveAll runs the targets at most n at a time and returns the
// outcomes in target order; per-host limits are the web client's.
func retrieveAll(ctx context.Context, eng *engine.Engine, base retrieve.Request, targets []string, n int, done func()) []getOutcome {
	out := make([]getOutcome, len(targets))
	if n <= 0 {
		n = 8
	}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			req := base
			req.Target = t
			res, err := eng.Retrieve(ctx, req)
			out[i] = getOutcome{res, err}
			if done != nil {
				done()
			}
		}()
	}
	wg.Wait()
	return out
}
