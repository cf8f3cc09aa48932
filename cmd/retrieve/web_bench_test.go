package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/internal/webcache"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/source/sources"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// smallPage is a ~1 KB article page.
var smallPage = "<html><head><title>Page %d</title></head><body><nav>a b c</nav><article><h1>Page %d</h1>" +
	strings.Repeat("<p>Some text of the article, with commas, that readability keeps as content.</p>", 10) +
	"</article></body></html>"

// BenchmarkWebPages retrieves 1,000 small pages from a loopback server, 8
// at a time, through the engine with the embedded ledger: once live (the
// server sends no validators), and once revalidated (the ledger holds a
// snapshot of every page and the server answers 304).
func BenchmarkWebPages(b *testing.B) {
	const pages = 1000
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		validators := strings.HasPrefix(r.URL.Path, "/v/")
		if validators {
			etag := `"` + r.URL.Path + `"`
			w.Header().Set("ETag", etag)
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, smallPage, len(r.URL.Path), len(r.URL.Path))
	}))
	defer srv.Close()
	run := func(b *testing.B, prefix string, warm, noRecord bool) {
		root := b.TempDir()
		_ = config.EnsureDir(root)
		st, err := sqlite.OpenStore(context.Background(), filepath.Join(root, ".retrieve", "retrieve.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		cfg := &config.Config{Web: config.Web{AllowHosts: []string{"127.0.0.1"}, Rate: -1}}
		ws, err := file.OpenWorkspace(root, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ws.Close()
		srcs, closeSources, err := sources.New(sources.Options{FS: ws, Config: cfg, WebCache: webcache.New(st)})
		if err != nil {
			b.Fatal(err)
		}
		defer closeSources()
		eng, err := engine.New(engine.Options{Sources: srcs, Store: st, SpoolDir: filepath.Join(root, ".retrieve", "tmp")})
		if err != nil {
			b.Fatal(err)
		}
		targets := make([]string, pages)
		for i := range targets {
			targets[i] = fmt.Sprintf("%s%s%d", srv.URL, prefix, i)
		}
		if warm {
			for _, o := range retrieveAll(context.Background(), eng, retrieve.Request{NoRecord: noRecord}, targets, 8, nil) {
				if o.err != nil {
					b.Fatal(o.err)
				}
			}
		}
		b.ResetTimer()
		for b.Loop() {
			for _, o := range retrieveAll(context.Background(), eng, retrieve.Request{NoRecord: noRecord}, targets, 8, nil) {
				if o.err != nil {
					b.Fatal(o.err)
				}
				if warm && o.res.Provenance.RetrievedFrom != retrieve.FromRevalidated {
					b.Fatalf("not revalidated: %s", o.res.Provenance.RetrievedFrom)
				}
			}
		}
		b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
	}
	b.Run("live", func(b *testing.B) { run(b, "/p/", false, false) })
	b.Run("revalidated", func(b *testing.B) { run(b, "/v/", true, false) })
	// Without the ledger write (--no-record): the fetch path alone; the
	// in-process memo supplies the snapshots.
	b.Run("live-norecord", func(b *testing.B) { run(b, "/p/", false, true) })
	b.Run("revalidated-norecord", func(b *testing.B) { run(b, "/v/", true, true) })
}
