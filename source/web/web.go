// Package web is the web source: it fetches http(s) pages through the
// guarded client (internal/webclient), honours robots.txt, revalidates
// snapshots with ETag / Last-Modified, converts HTML to Markdown (main
// content by readability, the whole page with --raw, CSS selection with
// --select) and passes JSON, text, Markdown, CSV and XML through to the
// engine's extractors.
package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
	fhtml "github.com/retrieve-dev/retrieve/format/html"
	"github.com/retrieve-dev/retrieve/internal/webclient"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
)

// Options configure the web source.
type Options struct {
	Client *webclient.Client
	// Robots checks robots.txt; nil builds one over Client.
	Robots *webclient.Robots
	// Cache finds snapshots for revalidation and --max-age; nil disables both.
	Cache webclient.Cache
	// SharedStore says the ledger is shared by several users (PostgreSQL):
	// a "Cache-Control: private" page is then not kept, as a shared HTTP
	// cache would not keep it.
	SharedStore bool
	// AuthorityHosts are hosts whose https pages have high authority.
	AuthorityHosts []string
	// TransferCap caps a response body as it is downloaded, decompressed
	// bytes counted (default 10 MiB): a source's transfer cap, not the
	// caller's max_bytes (a cap on the data returned) nor a server's
	// message budget.
	TransferCap int64
	// Now returns the current time (tests).
	Now func() time.Time
}

// Source retrieves web pages.
type Source struct {
	opts   Options
	robots *webclient.Robots
	high   map[string]bool
}

var (
	_ retrieve.Source  = (*Source)(nil)
	_ retrieve.Schemer = (*Source)(nil)
)

// New returns a web source.
func New(opts Options) *Source {
	if opts.Client == nil {
		opts.Client = webclient.New(webclient.Options{})
	}
	if opts.TransferCap <= 0 {
		opts.TransferCap = webclient.DefaultTransferCap
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Source{opts: opts, robots: opts.Robots, high: map[string]bool{}}
	if s.robots == nil {
		s.robots = webclient.NewRobots(opts.Client, "retrieve")
	}
	for _, h := range opts.AuthorityHosts {
		s.high[strings.ToLower(h)] = true
	}
	return s
}

// Kind implements retrieve.Source.
func (s *Source) Kind() string { return "web" }

// Schemes implements retrieve.Schemer: http and https URLs (those an api
// source registered before it does not take).
func (s *Source) Schemes() []string { return []string{"http", "https"} }

// mode names how the page is turned into data; snapshots are reused only
// for the same mode.
func mode(req *retrieve.Request) string {
	switch {
	case req.Format == "html":
		return "html"
	case req.Constraints.Select != "":
		return "select:" + req.Constraints.Select
	case req.Constraints.Raw:
		return "raw"
	}
	return "readability"
}

// Fetch implements retrieve.Source.
func (s *Source) Fetch(ctx context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	doc, err := s.fetch(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := CheckVersion(doc, req.Constraints.Version); err != nil {
		doc.Body.Close()
		return nil, err
	}
	return doc, nil
}

// CheckVersion refuses a document whose version (ETag or Last-Modified) is
// not the one --version asks for: a web server serves only its current
// version.
func CheckVersion(doc *retrieve.Document, want string) error {
	if want == "" {
		return nil
	}
	have := ""
	if doc.Version != nil {
		have = *doc.Version
	}
	if have == want || strings.Trim(have, `"`) == strings.Trim(want, `"`) || strings.TrimPrefix(have, "W/") == want {
		return nil
	}
	e := retrieve.Errorf(retrieve.CodeVersionNotFound, "%s is at version %q, not %q", doc.Locator, have, want)
	if have == "" {
		e = retrieve.Errorf(retrieve.CodeVersionNotFound, "%s gives no version (no ETag or Last-Modified), so %q cannot be checked", doc.Locator, want)
	}
	return e.WithHint("a server serves only its current version; drop --version, or use --fallback snapshot or `retrieve snapshot` for what was recorded")
}

func (s *Source) fetch(ctx context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	u, err := url.Parse(req.Target)
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "%q is not a valid URL", webclient.RedactURL(req.Target)).
			WithHint("pass an absolute URL such as https://example.com/page")
	}
	if err := webclient.CheckScheme(u); err != nil {
		return nil, err
	}
	u.Fragment, u.RawFragment = "", ""
	target := u.String()
	cite := webclient.RedactURL(target)
	ctx = webclient.WithAllow(ctx, req.Web.AllowHosts)
	m := mode(req)
	var assumptions []string

	var prev *webclient.Cached
	if s.opts.Cache != nil {
		prev, _ = s.opts.Cache.Lookup(ctx, s.Kind(), req.Target, m)
	}
	if req.Web.MaxAge != "" {
		maxAge, err := time.ParseDuration(req.Web.MaxAge)
		if err != nil || maxAge < 0 {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "--max-age %q is not a duration", req.Web.MaxAge).WithHint("write it as a Go duration: 10m, 24h")
		}
		if prev != nil {
			if age := s.opts.Now().Sub(prev.At); age <= maxAge {
				return s.fromSnapshot(req, cite, prev, age, maxAge), nil
			}
		}
	}

	if req.Web.IgnoreRobots {
		assumptions = append(assumptions, "robots.txt was not consulted (--ignore-robots)")
	} else {
		if err := s.robots.Check(ctx, u); err != nil {
			return nil, err
		}
		// Every redirect target is checked against its own host's robots.txt.
		ctx = webclient.WithRedirectCheck(ctx, func(rctx context.Context, ru *url.URL) error {
			return s.robots.Check(rctx, ru)
		})
	}

	hdr := http.Header{}
	hdr.Set("Accept", "text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.8,*/*;q=0.5")
	webclient.Conditional(hdr, prev)
	// max_bytes caps the data returned, not the download: the parts of a
	// cut page (#bytes=…) count in the text of the whole page.
	resp, err := s.opts.Client.Do(ctx, webclient.Request{URL: target, Header: hdr, TransferCap: s.opts.TransferCap})
	if err != nil {
		return nil, err
	}
	if resp.Status == http.StatusNotModified && prev != nil {
		if rm, ok := s.opts.Cache.(webclient.Rememberer); ok {
			again := *prev
			again.At = s.opts.Now() // validated now: --max-age counts from here
			rm.Remember(s.Kind(), req.Target, m, &again)
		}
		return s.revalidated(req, cite, prev, resp, assumptions), nil
	}
	if resp.Status < 200 || resp.Status > 299 {
		return nil, webclient.StatusError(resp, cite)
	}
	doc, err := s.document(ctx, req, u, cite, m, resp, assumptions)
	if err == nil {
		if doc.NoStore = webclient.NoStore(resp.Header, s.opts.SharedStore); doc.NoStore == "" {
			s.remember(req.Target, m, doc, resp)
		}
	}
	return doc, err
}

// remember hands a fresh page with validators to the cache, so that the
// next request of it in this process revalidates without a store lookup.
func (s *Source) remember(target, m string, doc *retrieve.Document, resp *webclient.Response) {
	rm, ok := s.opts.Cache.(webclient.Rememberer)
	if !ok || doc.Incomplete || (resp.Header.Get("ETag") == "" && resp.Header.Get("Last-Modified") == "") {
		return
	}
	body, err := io.ReadAll(doc.Body)
	if err != nil {
		return
	}
	doc.Body = io.NopCloser(bytes.NewReader(body))
	md := make(map[string]any, len(doc.Metadata)+1)
	for k, v := range doc.Metadata {
		md[k] = v
	}
	md[webclient.MetaBodyFormat] = doc.Format
	rm.Remember(s.Kind(), target, m, &webclient.Cached{
		Body: body, ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified"),
		At: s.opts.Now(), SourceHash: doc.SourceHash, Format: doc.Format, Metadata: md,
	})
}

// base fills what every web document shares.
func (s *Source) base(cite, finalURL string) *retrieve.Document {
	host := ""
	if u, err := url.Parse(finalURL); err == nil {
		host = u.Host
	}
	doc := &retrieve.Document{
		Locator:  cite,
		Label:    "web:" + host,
		Volatile: true, // a page changes: its snapshots go stale
		// A span is cited as a text fragment of the URL, which takes no line suffix.
		TextFragments: true,
		Reliability:   "Web page fetched over HTTP",
		Metadata:      map[string]any{},
	}
	doc.Authority = s.authority(finalURL)
	if doc.Authority == retrieve.AuthorityLow {
		doc.Assumptions = append(doc.Assumptions, "Fetched over plain http: the content could have been altered in transit (low authority)")
	}
	return doc
}

// authority: allow-listed https host → high, https → medium, http → low.
func (s *Source) authority(raw string) retrieve.Authority {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" {
		return retrieve.AuthorityLow
	}
	if s.high[strings.ToLower(u.Hostname())] {
		return retrieve.AuthorityHigh
	}
	return retrieve.AuthorityMedium
}

func (s *Source) fromSnapshot(req *retrieve.Request, cite string, prev *webclient.Cached, age, maxAge time.Duration) *retrieve.Document {
	doc := s.snapshotDoc(req, cite, prev)
	doc.RetrievedFrom = retrieve.FromSnapshot
	doc.Age = age
	doc.Assumptions = append(doc.Assumptions, fmt.Sprintf("Served from the snapshot fetched %s ago, within --max-age %s; no request was sent", age.Round(time.Second), maxAge))
	return doc
}

func (s *Source) revalidated(req *retrieve.Request, cite string, prev *webclient.Cached, resp *webclient.Response, assumptions []string) *retrieve.Document {
	doc := s.snapshotDoc(req, cite, prev)
	doc.RetrievedFrom = retrieve.FromRevalidated
	doc.Assumptions = append(doc.Assumptions, assumptions...)
	if v := webclient.Version(resp.Header); v != nil {
		doc.Version = v
	}
	return doc
}

// snapshotDoc serves the stored, already converted body: no re-extraction.
func (s *Source) snapshotDoc(req *retrieve.Request, cite string, prev *webclient.Cached) *retrieve.Document {
	final := cite
	if f, ok := prev.Metadata["final_url"].(string); ok && f != "" {
		final = f
	}
	doc := s.base(cite, final)
	for k, v := range prev.Metadata {
		doc.Metadata[k] = v
	}
	doc.Body = io.NopCloser(bytes.NewReader(prev.Body))
	doc.Size = int64(len(prev.Body))
	doc.Format = prev.Format
	doc.SourceHash = prev.SourceHash
	if prev.ETag != "" {
		v := prev.ETag
		doc.Version = &v
	} else if prev.LastModified != "" {
		v := prev.LastModified
		doc.Version = &v
	}
	if t, err := http.ParseTime(prev.LastModified); err == nil {
		t = t.UTC()
		doc.LastModified = &t
	}
	if conv, ok := prev.Metadata[metaConversion].(string); ok {
		// The snapshot holds the converted text: how it was converted
		// (a heuristic, a whole page) scores and reads the same as when it
		// was fetched, whether revalidated (304) or served by --max-age.
		converted(doc, conv)
	}
	if req.Constraints.Select != "" && prev.Format == "markdown" {
		doc.AppliedFilters = map[string]any{"select": req.Constraints.Select, "select_kind": "css"}
		req.Constraints.Select = ""
	}
	return doc
}

// document turns a fresh 2xx response into a Document.
func (s *Source) document(ctx context.Context, req *retrieve.Request, u *url.URL, cite, m string, resp *webclient.Response, assumptions []string) (*retrieve.Document, error) {
	finalCite := webclient.RedactURL(resp.FinalURL)
	doc := s.base(cite, resp.FinalURL)
	doc.Assumptions = append(doc.Assumptions, assumptions...)
	doc.Version = webclient.Version(resp.Header)
	doc.LastModified = webclient.LastModified(resp.Header)
	doc.SourceHash = retrieve.HashBytes(resp.Body)
	md := doc.Metadata
	md[webclient.MetaMode] = m
	defer func() { md[webclient.MetaBodyFormat] = doc.Format }()
	md["status"] = resp.Status
	md["final_url"] = finalCite
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		md["content_type"] = ct
	}
	if et := resp.Header.Get("ETag"); et != "" {
		md[webclient.MetaETag] = et
	}
	if lm := resp.Header.Get("Last-Modified"); lm != "" {
		md[webclient.MetaLastModified] = lm
	}
	if len(resp.Redirects) > 0 {
		chain := make([]string, len(resp.Redirects))
		for i, r := range resp.Redirects {
			chain[i] = webclient.RedactURL(r)
		}
		md["redirects"] = chain
		if fu, err := url.Parse(resp.FinalURL); err == nil && (fu.Host != u.Host || fu.Scheme != u.Scheme) {
			doc.Assumptions = append(doc.Assumptions, fmt.Sprintf("Redirected to another origin: %s", finalCite))
			doc.Deductions = append(doc.Deductions, retrieve.Deduction{Reason: "cross-origin redirect", Amount: 0.05})
		}
	}
	if resp.Truncated {
		doc.Incomplete = true
		doc.Truncated = true
		doc.Assumptions = append(doc.Assumptions, fmt.Sprintf("The response body was cut at %d bytes (the transfer cap, web.transfer_cap) while streaming: the page is partial", len(resp.Body)))
		doc.Deductions = append(doc.Deductions, retrieve.Deduction{Reason: "truncated", Amount: 0.1})
	}
	mediaType, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	body := resp.Body
	if mediaType == "" {
		mediaType = http.DetectContentType(body)
		mediaType, params, _ = mime.ParseMediaType(mediaType)
	}
	switch {
	case mediaType == "text/html" || mediaType == "application/xhtml+xml":
		return s.htmlDoc(req, doc, resp, m)
	case isText(mediaType):
		text, name, err := toUTF8(body, params["charset"])
		if err != nil {
			return nil, err
		}
		if name != "" {
			doc.Assumptions = append(doc.Assumptions, fmt.Sprintf("Converted from %s to UTF-8", name))
		}
		doc.Format = textFormat(mediaType)
		doc.Name = pathName(u)
		doc.Body = io.NopCloser(bytes.NewReader(text))
		doc.Size = int64(len(text))
	default:
		doc.Format = "binary"
		doc.Name = pathName(u)
		doc.Body = io.NopCloser(bytes.NewReader(body))
		doc.Size = int64(len(body))
	}
	return doc, nil
}

func (s *Source) htmlDoc(req *retrieve.Request, doc *retrieve.Document, resp *webclient.Response, m string) (*retrieve.Document, error) {
	text, name, err := fhtml.Decode(resp.Body, resp.Header.Get("Content-Type"))
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeParseFailed, "the page's %s text cannot be decoded", name).WithErr(err)
	}
	if name != "" {
		doc.Assumptions = append(doc.Assumptions, fmt.Sprintf("Converted from %s to UTF-8", name))
	}
	if req.Format == "html" {
		doc.Format = "html"
		doc.Body = io.NopCloser(bytes.NewReader(text))
		doc.Size = int64(len(text))
		return doc, nil
	}
	fu, _ := url.Parse(resp.FinalURL)
	page, err := fhtml.Convert(text, fu, req.Constraints.Raw, req.Constraints.Select)
	if err != nil {
		if se, ok := err.(*fhtml.ErrSelector); ok {
			return nil, retrieve.Errorf(retrieve.CodeSelectFailed, "%s", se.Error()).
				WithHint("on an HTML page --select takes a CSS selector such as 'article h2' or '#main'")
		}
		return nil, retrieve.Errorf(retrieve.CodeParseFailed, "the page cannot be converted to Markdown").WithErr(err)
	}
	for k, v := range page.Meta {
		doc.Metadata[k] = v
	}
	doc.Metadata[webclient.MetaMode] = m
	switch page.Mode {
	case "readability":
		conv := "readability"
		if page.Fallback {
			conv = "readability-fallback"
		}
		converted(doc, conv)
	case "raw":
		converted(doc, "raw")
	case "select":
		doc.AppliedFilters = map[string]any{"select": req.Constraints.Select, "select_kind": "css"}
		doc.Metadata["matches"] = page.Matches
		doc.Assumptions = append(doc.Assumptions, fmt.Sprintf("The CSS selector %q matched %d element(s), converted to Markdown", req.Constraints.Select, page.Matches))
		if page.Matches == 0 {
			return nil, retrieve.Errorf(retrieve.CodeSelectFailed, "the CSS selector %q matched nothing on %s", req.Constraints.Select, doc.Locator).
				WithHint("check the selector against the page (--format html shows the HTML)")
		}
		// The selection is done: the engine must not read it as jq.
		req.Constraints.Select = ""
		if req.Constraints.Lines == "" && len(req.Constraints.Sections) == 0 && req.Constraints.Bytes == "" {
			if frag := TextFragment(page.Markdown); frag != "" {
				doc.Anchors = []string{doc.Locator + "#:~:text=" + frag}
			}
		}
	}
	doc.Format = "markdown"
	b := []byte(page.Markdown)
	doc.Body = io.NopCloser(bytes.NewReader(b))
	doc.Size = int64(len(b))
	return doc, nil
}

func isText(mt string) bool {
	return strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "application/xml" || strings.HasSuffix(mt, "+xml") || mt == "application/yaml" ||
		mt == "application/x-yaml" || mt == "application/toml" || mt == "application/javascript"
}

func textFormat(mt string) string {
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return "json"
	case mt == "text/markdown" || mt == "text/x-markdown":
		return "markdown"
	case mt == "text/csv":
		return "csv"
	case mt == "application/yaml" || mt == "application/x-yaml" || mt == "text/yaml":
		return "yaml"
	case mt == "application/toml":
		return "toml"
	}
	return "text"
}

func pathName(u *url.URL) string {
	p := u.Path
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	return p
}

// toUTF8 converts text in the named charset to UTF-8; the returned name is
// empty when nothing was converted.
func toUTF8(b []byte, label string) ([]byte, string, error) {
	label = strings.TrimSpace(strings.ToLower(label))
	if label == "" || label == "utf-8" || label == "utf8" || label == "us-ascii" {
		return b, "", nil
	}
	enc, err := htmlindex.Get(label)
	if err != nil {
		return b, "", nil // unknown label: leave the bytes to the engine's UTF-8 check
	}
	name, _ := htmlindex.Name(enc)
	if name == "utf-8" {
		return b, "", nil
	}
	out, err := decode(enc, b)
	if err != nil {
		return nil, "", retrieve.Errorf(retrieve.CodeParseFailed, "the %s text cannot be decoded", name).WithErr(err)
	}
	return out, name, nil
}

func decode(enc encoding.Encoding, b []byte) ([]byte, error) {
	return enc.NewDecoder().Bytes(b)
}

// TextFragment builds a URL text fragment (#:~:text=start,end) that
// highlights the first line of converted Markdown.
func TextFragment(markdown string) string { return retrieve.MarkdownTextFragment(markdown) }

// metaConversion is the metadata key naming how a page's body became the
// returned text; snapshots keep it with the body.
const metaConversion = "conversion"

// converted records how the body became text: its assumption, its
// deduction, and the metadata that lets a snapshot of it say the same.
func converted(doc *retrieve.Document, conv string) {
	doc.Metadata[metaConversion] = conv
	switch conv {
	case "readability":
		doc.Deductions = append(doc.Deductions, retrieve.Deduction{Reason: "heuristic extraction", Amount: fhtml.HeuristicDeduction})
		doc.Assumptions = append(doc.Assumptions, fhtml.ReadabilityAssumption)
	case "readability-fallback":
		doc.Deductions = append(doc.Deductions, retrieve.Deduction{Reason: "heuristic extraction", Amount: fhtml.HeuristicDeduction})
		doc.Assumptions = append(doc.Assumptions, fhtml.FallbackAssumption)
	case "raw":
		doc.Assumptions = append(doc.Assumptions, fhtml.WholeAssumption)
	case "pdftotext":
		// Snapshots of PDFs converted by pdftotext before the engine
		// extracted them through the format registry (format/pdf).
		doc.Deductions = append(doc.Deductions, retrieve.Deduction{Reason: "heuristic extraction", Amount: 0.05})
		doc.Assumptions = append(doc.Assumptions, "Text extracted from the PDF by pdftotext; layout is approximate")
	}
}
