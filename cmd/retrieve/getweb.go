package main

import (
	"bufio"
	"context"
	"os"
	"strings"
	"sync"

	"github.com/retrieve-dev/retrieve"
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

// readBatch reads targets from a file, one per line.
func readBatch(name string) ([]string, error) {
	var f *os.File
	if name == "-" {
		f = os.Stdin
	} else {
		var err error
		if f, err = os.Open(name); err != nil {
			return nil, retrieve.Errorf(retrieve.CodePathNotFound, "cannot open the batch file %s", name).WithErr(err).
				WithHint("pass a file with one target per line")
		}
		defer f.Close()
	}
	var out []string
	sc := bufio.NewScanner(f)
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
func retrieveAll(ctx context.Context, eng *retrieve.Engine, base retrieve.Request, targets []string, n int) []getOutcome {
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
		}()
	}
	wg.Wait()
	return out
}
