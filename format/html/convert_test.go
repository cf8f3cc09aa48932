package html_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/formattest"
	fhtml "github.com/retrieve-dev/retrieve/format/html"
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

func FuzzConvertHTML(f *testing.F) {
	for _, s := range []string{article, "<p>x", "<table><td>1<td>2", "<<>>&amp;", "<svg><script>x</script>", "<html><head><meta charset=x>"} {
		f.Add(s, false, "")
		f.Add(s, true, "p")
	}
	f.Fuzz(func(t *testing.T, src string, raw bool, sel string) {
		p, err := fhtml.Convert([]byte(src), nil, raw, sel)
		if err != nil {
			return
		}
		if p.Markdown != "" && !strings.HasSuffix(p.Markdown, "\n") {
			t.Fatalf("markdown does not end with a newline")
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
		p, err := fhtml.Convert(page, nil, false, "")
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
		if _, err := fhtml.Convert(page, nil, false, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// TestConcurrentConvert converts pages from many goroutines at once
// through the shared converter (run with -race in CI).
func TestConcurrentConvert(t *testing.T) {
	want, err := fhtml.Convert([]byte(article), nil, false, "")
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan string, 16)
	for i := range 16 {
		go func() {
			p, err := fhtml.Convert([]byte(article), nil, i%2 == 0, "")
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

func TestFormat(t *testing.T) {
	formattest.Run(t, fhtml.New(), []formattest.Sample{
		{Name: "article.html", Data: []byte(article), Phrase: "Quoted text in part two"},
		{Name: "latin1.html", Data: []byte("<html><head><meta charset=\"iso-8859-1\"></head><body><p>Caf\xe9 cr\xe8me is served at noon every day.</p></body></html>"), Phrase: "Café crème is served"},
		{Name: "large.html", Data: bigArticle(1 << 20), Phrase: "Paragraph 7 of the article", Large: true},
	})
}

func TestFormatSelect(t *testing.T) {
	src := []byte(article)
	txt, err := fhtml.New().Select(context.Background(), bytes.NewReader(src), int64(len(src)), "p.quote", format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Quoted text in part two, which a selector can pick.\n"; txt.Text != want {
		t.Fatalf("got %q, want %q", txt.Text, want)
	}
	_, err = fhtml.New().Select(context.Background(), bytes.NewReader(src), int64(len(src)), "p.nothing", format.Options{})
	if !errors.Is(err, format.ErrNoPart) {
		t.Fatalf("a selector matching nothing: got %v, want ErrNoPart", err)
	}
	_, err = fhtml.New().Select(context.Background(), bytes.NewReader(src), int64(len(src)), "p[", format.Options{})
	if !errors.Is(err, format.ErrMalformed) {
		t.Fatalf("a bad selector: got %v, want ErrMalformed", err)
	}
}

func TestFormatSections(t *testing.T) {
	src := []byte(article)
	txt, err := fhtml.New().Extract(context.Background(), bytes.NewReader(src), int64(len(src)), format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range txt.Sections {
		titles = append(titles, s.Title)
	}
	if got := strings.Join(titles, "|"); !strings.Contains(got, "Part two") {
		t.Fatalf("sections %q, want one titled Part two", got)
	}
}

func FuzzFormat(f *testing.F) {
	formattest.Fuzz(f, fhtml.New(), []byte(article), []byte("<meta charset=\"shift_jis\"><p>\x82\xa0</p>"), []byte("<h1>x</h1><h2>y"))
}
