package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/webclient"
	"github.com/retrieve-dev/retrieve/source/web"
)

const article = `<!doctype html><html lang="en"><head><title>The page</title>
<meta name="description" content="About things">
<meta property="article:published_time" content="2026-01-02T03:04:05+01:00">
<link rel="canonical" href="/canonical"></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>Heading one</h1>
<p>The first paragraph of the article has enough words, and commas, to be found by readability as the main content of this page.</p>
<p>A second paragraph, also long enough, with a <a href="/link">relative link</a> and more words, more words, more words.</p>
<h2 id="two">Part two</h2><p class="quote">Quoted text in part two, which a selector can pick.</p>
<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>
</article><footer>Copyright</footer></body></html>`

type memCache struct {
	c    *webclient.Cached
	hits atomic.Int32
}

func (m *memCache) Lookup(_ context.Context, kind, target, mode string) (*webclient.Cached, error) {
	m.hits.Add(1)
	return m.c, nil
}

func newEngine(t *testing.T, cache webclient.Cache, maxBytes int64) *engine.Engine {
	t.Helper()
	c := webclient.New(webclient.Options{Allow: []string{"127.0.0.1"}, Rate: -1, BackoffBase: time.Millisecond, Timeout: 5 * time.Second})
	src := web.New(web.Options{Client: c, Cache: cache, TransferCap: maxBytes})
	eng, err := engine.New(engine.Options{Sources: []retrieve.Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

func server(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var bodies atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /secret\n")
	})
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Mon, 02 Jan 2026 03:04:05 GMT")
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		bodies.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, article)
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=ISO-8859-1")
		w.Write([]byte("<html><body><p>Caf\xe9 cr\xe8me br\xfbl\xe9e</p></body></html>"))
	})
	mux.HandleFunc("/sjis", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		// <meta charset=shift_jis> and 日本 in Shift-JIS.
		w.Write([]byte("<html><head><meta charset=\"shift_jis\"></head><body><p>\x93\xfa\x96\x7b</p></body></html>"))
	})
	mux.HandleFunc("/malformed", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><div><p>unclosed <b>bold <i>both</div></td></tr><p>after</table>&bogus;<<>>")
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"a":{"b":[1,2,3]}}`)
	})
	mux.HandleFunc("/image.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for i := range 10000 {
			fmt.Fprintf(w, "line %d\n", i)
		}
	})
	mux.HandleFunc("/secret/page", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "nope") })
	mux.HandleFunc("/to-secret", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/secret/page", http.StatusFound) })
	mux.HandleFunc("/to-article", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/article", http.StatusFound) })
	mux.HandleFunc("/doc.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		fmt.Fprint(w, "%PDF-1.4\n%not really a pdf\n")
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such page here", http.StatusNotFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &bodies
}

func get(t *testing.T, eng *engine.Engine, req retrieve.Request) (*retrieve.Result, error) {
	t.Helper()
	res, err := eng.Retrieve(context.Background(), req)
	contracttest.Check(t, res)
	return res, err
}

func TestWeb(t *testing.T) {
	srv, _ := server(t)
	eng := newEngine(t, nil, 0)

	t.Run("Readability", func(t *testing.T) {
		res, err := get(t, eng, retrieve.Request{Target: srv.URL + "/article"})
		if err != nil {
			t.Fatal(err)
		}
		data := res.Retrieved.Data.(string)
		if !strings.Contains(data, "first paragraph") || strings.Contains(data, "Copyright") || strings.Contains(data, "Home") {
			t.Errorf("main content not isolated:\n%s", data)
		}
		if !strings.Contains(data, "| k | v |") {
			t.Errorf("table lost:\n%s", data)
		}
		md := res.Provenance.Metadata
		if md["title"] != "The page" || md["description"] != "About things" || md["language"] != "en" ||
			md["published_time"] != "2026-01-02T02:04:05Z" || md["canonical_url"] != srv.URL+"/canonical" {
			t.Errorf("metadata: %v", md)
		}
		if v := res.Citation.Version; v == nil || *v != `"v1"` {
			t.Errorf("version %v", v)
		}
		if res.Provenance.LastModified == nil || *res.Provenance.LastModified != "2026-01-02T03:04:05Z" {
			t.Errorf("last_modified %v", res.Provenance.LastModified)
		}
		if res.Citation.Authority != retrieve.AuthorityLow || res.Confidence >= 1 || res.Retrieved.Format != "markdown" {
			t.Errorf("authority %s confidence %v format %s", res.Citation.Authority, res.Confidence, res.Retrieved.Format)
		}
	})
	t.Run("Raw", func(t *testing.T) {
		res, err := get(t, eng, retrieve.Request{Target: srv.URL + "/article", Constraints: retrieve.Constraints{Raw: true}})
		if err != nil || !strings.Contains(res.Retrieved.Data.(string), "Copyright") {
			t.Fatalf("err=%v", err)
		}
	})
	t.Run("FormatHTML", func(t *testing.T) {
		res, err := get(t, eng, retrieve.Request{Target: srv.URL + "/article", Format: "html"})
		if err != nil || res.Retrieved.Data.(string) != article {
			t.Fatalf("err=%v", err)
		}
	})
	t.Run("CSSSelect", func(t *testing.T) {
		res, err := get(t, eng, retrieve.Request{Target: srv.URL + "/article", Constraints: retrieve.Constraints{Select: "p.quote"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Retrieved.Data != "Quoted text in part two, which a selector can pick.\n" {
			t.Errorf("data %q", res.Retrieved.Data)
		}
		if res.Extraction.AppliedFilters["select"] != "p.quote" {
			t.Errorf("applied_filters %v", res.Extraction.AppliedFilters)
		}
		want := srv.URL + "/article#:~:text=Quoted%20text%20in%20part,a%20selector%20can%20pick."
		if len(res.EvidenceAnchors) != 1 || res.EvidenceAnchors[0] != want {
			t.Errorf("anchors %v, want %s", res.EvidenceAnchors, want)
		}
	})
	t.Run("CSSSelectBad", func(t *testing.T) {
		_, err := get(t, eng, retrieve.Request{Target: srv.URL + "/article", Constraints: retrieve.Constraints{Select: "p[[["}})
		if retrieve.ErrorCode(err) != retrieve.CodeSelectFailed {
			t.Fatalf("got %v", err)
		}
		_, err = get(t, eng, retrieve.Request{Target: srv.URL + "/article", Constraints: retrieve.Constraints{Select: "blink"}})
		if retrieve.ErrorCode(err) != retrieve.CodeSelectFailed {
			t.Fatalf("no match: got %v", err)
		}
	})
	t.Run("Latin1", func(t *testing.T) {
		res, err := get(t, eng, retrieve.Request{Target: srv.URL + "/latin1"})
		if err != nil || !strings.Contains(res.Retrieved.Data.(string), "Café crème brûlée") {
			t.Fatalf("err=%v data=%v", err, res.Retrieved.Data)
		}
		if !strings.Contains(strings.Join(res.Assumptions, "\n"), "windows-1252") {
			t.Errorf("conversion not said: %v", res.Assumptions)
		}
	})
	t.Run("ShiftJIS", func(t *testing.T) {
		res, err := get(t, eng, retrieve.Request{Target: srv.URL + "/sjis"})
		if err != nil || !strings.Contains(res.Retrieved.Data.(string), "日本") {
			t.Fatalf("err=%v data=%v", err, res.Retrieved.Data)
		}
	})
	t.Run("Malformed", func(t *testing.T) {
		res, err := get(t, eng, retrieve.Request{Target: srv.URL + "/malformed"})
		if err != nil || !strings.Contains(res.Retrieved.Data.(string), "after") {
			t.Fatalf("err=%v data=%v", err, res.Retrieved.Data)
		}
	})
	t.Run("JSONWithJq", func(t *testing.T) {
		res, err := get(t, eng, retrieve.Request{Target: srv.URL + "/data.json", Constraints: retrieve.Constraints{Select: ".a.b[1]"}})
		if err != nil || fmt.Sprint(res.Retrieved.Data) != "2" {
			t.Fatalf("err=%v data=%v", err, res.Retrieved.Data)
		}
	})
	t.Run("BinaryHashOnly", func(t *testing.T) {
		res, err := get(t, eng, retrieve.Request{Target: srv.URL + "/image.png"})
		if err != nil || res.Retrieved.Data != nil || res.Citation.Hash == nil {
			t.Fatalf("err=%v data=%v", err, res.Retrieved.Data)
		}
	})
	t.Run("Lines", func(t *testing.T) {
		res, err := get(t, eng, retrieve.Request{Target: srv.URL + "/big", Constraints: retrieve.Constraints{Lines: "2-3"}})
		if err != nil || res.Retrieved.Data != "line 1\nline 2\n" {
			t.Fatalf("err=%v data=%q", err, res.Retrieved.Data)
		}
		if want := srv.URL + "/big#:~:text=line%201"; len(res.EvidenceAnchors) != 1 || res.EvidenceAnchors[0] != want {
			t.Errorf("anchors %v, want %s", res.EvidenceAnchors, want)
		}
	})
	t.Run("Robots", func(t *testing.T) {
		_, err := get(t, eng, retrieve.Request{Target: srv.URL + "/secret/page"})
		if retrieve.ErrorCode(err) != retrieve.CodeRobotsDisallowed {
			t.Fatalf("got %v", err)
		}
		if _, err := get(t, eng, retrieve.Request{Target: srv.URL + "/to-secret"}); retrieve.ErrorCode(err) != retrieve.CodeRobotsDisallowed {
			t.Fatalf("redirect into a disallowed path: got %v", err)
		}
		res, err := get(t, eng, retrieve.Request{Target: srv.URL + "/to-article"})
		if err != nil || res.Provenance.Metadata["final_url"] != srv.URL+"/article" || len(res.Provenance.Metadata["redirects"].([]string)) != 1 {
			t.Fatalf("redirect: err=%v metadata=%v", err, res.Provenance.Metadata)
		}
		res, err = get(t, eng, retrieve.Request{Target: srv.URL + "/secret/page", Web: retrieve.WebOptions{IgnoreRobots: true}})
		if err != nil || !strings.Contains(strings.Join(res.Assumptions, "\n"), "--ignore-robots") {
			t.Fatalf("err=%v assumptions=%v", err, res.Assumptions)
		}
	})
	t.Run("Version", func(t *testing.T) {
		if _, err := get(t, eng, retrieve.Request{Target: srv.URL + "/article", Constraints: retrieve.Constraints{Version: `"v1"`}}); err != nil {
			t.Fatalf("matching version: %v", err)
		}
		if _, err := get(t, eng, retrieve.Request{Target: srv.URL + "/article", Constraints: retrieve.Constraints{Version: `"v0"`}}); retrieve.ErrorCode(err) != retrieve.CodeVersionNotFound {
			t.Fatalf("other version: %v", err)
		}
	})
	t.Run("PDF", func(t *testing.T) {
		res, err := get(t, eng, retrieve.Request{Target: srv.URL + "/doc.pdf"})
		if _, lerr := exec.LookPath("pdftotext"); lerr != nil {
			if retrieve.ErrorCode(err) != retrieve.CodeUnsupportedFormat || !strings.Contains(res.Error.Hint, "poppler") {
				t.Fatalf("without pdftotext: %v", err)
			}
			return
		}
		if err != nil && retrieve.ErrorCode(err) != retrieve.CodeParseFailed {
			t.Fatalf("with pdftotext: %v", err)
		}
	})
	t.Run("Status", func(t *testing.T) {
		res, err := get(t, eng, retrieve.Request{Target: srv.URL + "/missing"})
		if retrieve.ErrorCode(err) != retrieve.CodeUpstreamStatus || !strings.Contains(res.Error.Message, "404") || !strings.Contains(res.Error.Message, "no such page") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("Scheme", func(t *testing.T) {
		for _, u := range []string{"file:///etc/passwd", "gopher://127.0.0.1/"} {
			_, err := get(t, eng, retrieve.Request{Target: u, Source: "web"})
			if retrieve.ErrorCode(err) != retrieve.CodeBlockedAddress {
				t.Errorf("%s: %v", u, err)
			}
		}
	})
	t.Run("Redacted", func(t *testing.T) {
		u := strings.Replace(srv.URL, "http://", "http://user:pw@", 1) + "/data.json?access_token=s3cr3t"
		res, err := get(t, eng, retrieve.Request{Target: u})
		if err != nil {
			t.Fatal(err)
		}
		if ref := res.Citation.Reference; strings.Contains(ref, "s3cr3t") || strings.Contains(ref, "pw@") || !strings.Contains(ref, "access_token=REDACTED") {
			t.Errorf("reference %s", ref)
		}
	})
}

func TestTruncated(t *testing.T) {
	srv, _ := server(t)
	eng := newEngine(t, nil, 1000)
	res, err := get(t, eng, retrieve.Request{Target: srv.URL + "/big"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Retrieved.Complete || !res.Extraction.Truncated || !strings.Contains(strings.Join(res.Assumptions, "\n"), "cut at 1000 bytes") {
		t.Fatalf("a capped body must be flagged: complete=%v truncated=%v %v", res.Retrieved.Complete, res.Extraction.Truncated, res.Assumptions)
	}
}

func TestRevalidation(t *testing.T) {
	srv, bodies := server(t)
	cache := &memCache{}
	eng := newEngine(t, cache, 0)
	first, err := get(t, eng, retrieve.Request{Target: srv.URL + "/article"})
	if err != nil {
		t.Fatal(err)
	}
	cache.c = &webclient.Cached{
		Body: []byte(first.Retrieved.Data.(string)), ETag: `"v1"`, At: time.Now().Add(-time.Hour),
		SourceHash: *first.Citation.SourceHash, Format: "markdown", Metadata: first.Provenance.Metadata,
	}
	res, err := get(t, eng, retrieve.Request{Target: srv.URL + "/article"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Provenance.RetrievedFrom != retrieve.FromRevalidated || res.Provenance.Freshness != retrieve.FreshnessFresh ||
		*res.Citation.Hash != *first.Citation.Hash || bodies.Load() != 1 {
		t.Fatalf("from=%s freshness=%s bodies=%d", res.Provenance.RetrievedFrom, res.Provenance.Freshness, bodies.Load())
	}
	// The same bytes score the same, whatever the transport: the 304 keeps
	// the live read's confidence and its readability note.
	if res.Confidence != first.Confidence || first.Confidence >= 1 ||
		!strings.Contains(strings.Join(res.Assumptions, "\n"), "readability") {
		t.Fatalf("revalidated confidence %v (live %v), assumptions %v", res.Confidence, first.Confidence, res.Assumptions)
	}
	// --max-age: young enough, no request at all.
	res, err = get(t, eng, retrieve.Request{Target: srv.URL + "/article", Web: retrieve.WebOptions{MaxAge: "2h"}})
	if err != nil || res.Provenance.RetrievedFrom != retrieve.FromSnapshot || res.Provenance.AgeSeconds < 3500 {
		t.Fatalf("err=%v from=%s age=%v", err, res.Provenance.RetrievedFrom, res.Provenance.AgeSeconds)
	}
	// Too old for --max-age: revalidated instead.
	res, err = get(t, eng, retrieve.Request{Target: srv.URL + "/article", Web: retrieve.WebOptions{MaxAge: "10m"}})
	if err != nil || res.Provenance.RetrievedFrom != retrieve.FromRevalidated {
		t.Fatalf("err=%v from=%s", err, res.Provenance.RetrievedFrom)
	}
	// A stale snapshot past the TTL is reported stale.
	cache.c.At = time.Now().Add(-48 * time.Hour)
	res, err = get(t, eng, retrieve.Request{Target: srv.URL + "/article", Web: retrieve.WebOptions{MaxAge: "72h"}})
	if err != nil || res.Provenance.Freshness != retrieve.FreshnessStale {
		t.Fatalf("err=%v freshness=%s", err, res.Provenance.Freshness)
	}
}

func FuzzConvertHTML(f *testing.F) {
	for _, s := range []string{article, "<p>x", "<table><td>1<td>2", "<<>>&amp;", "<svg><script>x</script>", "<html><head><meta charset=x>"} {
		f.Add(s, false, "")
		f.Add(s, true, "p")
	}
	f.Fuzz(func(t *testing.T, src string, raw bool, sel string) {
		p, err := web.ConvertHTML([]byte(src), nil, raw, sel)
		if err != nil {
			return
		}
		if p.Markdown != "" && !strings.HasSuffix(p.Markdown, "\n") {
			t.Fatalf("markdown does not end with a newline")
		}
	})
}

func FuzzTextFragment(f *testing.F) {
	for _, s := range []string{"Hello world", "# Title - with, commas & more\nnext", "", "\n\n  \n", "a b c d e f g h i j k"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		frag := web.TextFragment(s)
		if strings.ContainsAny(frag, " &-#\n") {
			t.Fatalf("unescaped directive syntax in %q", frag)
		}
	})
}

// bigArticle builds an article page of about size bytes.
func bigArticle(size int) []byte {
	var b strings.Builder
	b.WriteString("<!doctype html><html lang=\"en\"><head><title>Big</title></head><body><nav>")
	for i := range 50 {
		fmt.Fprintf(&b, "<a href=\"/n%d\">nav %d</a> ", i, i)
	}
	b.WriteString("</nav><article><h1>Big article</h1>")
	for i := 0; b.Len() < size; i++ {
		if i%10 == 0 {
			fmt.Fprintf(&b, "<h2>Section %d</h2>", i/10)
		}
		fmt.Fprintf(&b, "<p>Paragraph %d of the article, with <a href=\"/l%d\">a link</a>, some <em>emphasis</em>, commas, and enough words to look like prose that a reader would want to keep.</p>", i, i)
	}
	b.WriteString("</article><footer>footer</footer></body></html>")
	return []byte(b.String())
}

// BenchmarkConvertHTML500K is readability + Markdown conversion of a 500 KB page.
func BenchmarkConvertHTML500K(b *testing.B) {
	page := bigArticle(500 << 10)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := web.ConvertHTML(page, nil, false, "")
		if err != nil || len(p.Markdown) < 100<<10 {
			b.Fatalf("err=%v len=%d", err, len(p.Markdown))
		}
	}
}

// BenchmarkConvertHTMLSmall is readability + Markdown of a 1 KB page.
func BenchmarkConvertHTMLSmall(b *testing.B) {
	page := []byte(article)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := web.ConvertHTML(page, nil, false, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// TestConcurrentConvert converts pages from many goroutines at once
// through the shared converter (run with -race in CI).
func TestConcurrentConvert(t *testing.T) {
	want, err := web.ConvertHTML([]byte(article), nil, false, "")
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan string, 16)
	for i := range 16 {
		go func() {
			p, err := web.ConvertHTML([]byte(article), nil, i%2 == 0, "")
			switch {
			case err != nil:
				errs <- err.Error()
			case i%2 == 1 && p.Markdown != want.Markdown:
				errs <- "different output under concurrency"
			default:
				errs <- ""
			}
		}()
	}
	for range 16 {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}
