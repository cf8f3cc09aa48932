// Package api is the api source: JSON endpoints read with GET or HEAD
// through the guarded client, headers from flags or the workspace config
// (secrets as ${env:NAME}, resolved at call time and never recorded),
// optional pagination by Link rel="next", and jq projection by the engine.
package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/extract"
	"github.com/retrieve-dev/retrieve/internal/webclient"
)

// MaxPages caps --pages.
const MaxPages = 100

// Options configure the api source.
type Options struct {
	Client *webclient.Client
	// Headers are sent to every endpoint of a host: host → name → value
	// (values may hold ${env:NAME}).
	Headers map[string]map[string]string
	// AuthorityHosts are hosts whose https endpoints have high authority.
	AuthorityHosts []string
	// TransferCap caps a response body as it is downloaded (default 10 MiB):
	// a source's transfer cap, lowered by the caller's max_bytes.
	TransferCap int64
	// Hosts are matched without --source api.
	Hosts []string
	// Cache finds snapshots for revalidation and --max-age of single-page
	// GETs; nil disables both.
	Cache webclient.Cache
}

// mode is the cache mode of the api source.
const mode = "api"

// Source reads JSON endpoints.
type Source struct {
	opts Options
	high map[string]bool
}

var (
	_ retrieve.Source  = (*Source)(nil)
	_ retrieve.Matcher = (*Source)(nil)
	_ retrieve.Schemer = (*Source)(nil)
)

// New returns an api source.
func New(opts Options) *Source {
	if opts.Client == nil {
		opts.Client = webclient.New(webclient.Options{})
	}
	if opts.TransferCap <= 0 {
		opts.TransferCap = webclient.DefaultTransferCap
	}
	s := &Source{opts: opts, high: map[string]bool{}}
	for _, h := range opts.AuthorityHosts {
		s.high[strings.ToLower(h)] = true
	}
	return s
}

// Kind implements retrieve.Source.
func (s *Source) Kind() string { return "api" }

// Schemes implements retrieve.Schemer: http and https URLs, of which
// Match takes the configured hosts.
func (s *Source) Schemes() []string { return []string{"http", "https"} }

// Match implements retrieve.Matcher: http(s) URLs of the configured hosts.
func (s *Source) Match(target string) bool {
	if len(s.opts.Hosts) == 0 {
		return false
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	for _, h := range s.opts.Hosts {
		if strings.EqualFold(h, u.Hostname()) || strings.EqualFold(h, u.Host) {
			return true
		}
	}
	return false
}

// headers builds the request headers, expanding ${env:NAME} now.
func (s *Source) headers(u *url.URL, flags []string) (http.Header, error) {
	h := http.Header{}
	h.Set("Accept", "application/json")
	for host, hs := range s.opts.Headers {
		if !strings.EqualFold(host, u.Hostname()) && !strings.EqualFold(host, u.Host) && host != "*" {
			continue
		}
		for k, v := range hs {
			ev, err := config.Expand(v)
			if err != nil {
				return nil, err
			}
			h.Set(k, ev)
		}
	}
	for _, f := range flags {
		name, val, ok := strings.Cut(f, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "--header must be 'Name: value'").
				WithHint("for example --header 'Authorization: Bearer ${env:API_TOKEN}'")
		}
		ev, err := config.Expand(strings.TrimSpace(val))
		if err != nil {
			refs, _ := config.EnvRefs(val)
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "header %s: %s", name, retrieve.AsError(err).Message).
				WithHint("export %s and run it again: the header is written %s: %s, and its value is read from the environment when the request is sent (a citation's verify too)", strings.Join(refs, ", "), name, strings.TrimSpace(val))
		}
		h.Set(name, ev)
	}
	return h, nil
}

// headerRecord is what a citation records of the request headers
// (retrieve.MetaRequestHeaders): each header's name and where it came
// from; for a --header whose value is ${env:NAME} references, behind at
// most an authentication scheme ("Bearer ${env:TOKEN}"), that template,
// which verify expands again. A value written literally may be a secret:
// only its name is recorded. Config headers are read from the
// configuration again on every request.
func (s *Source) headerRecord(u *url.URL, flags []string) []any {
	var out []any
	var names []string
	for host, hs := range s.opts.Headers {
		if !strings.EqualFold(host, u.Hostname()) && !strings.EqualFold(host, u.Host) && host != "*" {
			continue
		}
		for k := range hs {
			names = append(names, http.CanonicalHeaderKey(k))
		}
	}
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		out = append(out, map[string]any{"name": n, "from": "config"})
	}
	for _, f := range flags {
		name, val, _ := strings.Cut(f, ":")
		val = strings.TrimSpace(val)
		rec := map[string]any{"name": http.CanonicalHeaderKey(strings.TrimSpace(name)), "from": "flag", "value": nil}
		if refs, rest := config.EnvRefs(val); len(refs) > 0 && authScheme().MatchString(rest) {
			rec["value"] = val
		}
		out = append(out, rec)
	}
	return out
}

// authScheme is what may stand beside ${env:NAME} references in a
// recorded header value: nothing, or a scheme word such as Bearer.
var authScheme = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(?:[A-Za-z][A-Za-z0-9_-]{0,19}\s+)?$`) })

// scrubHeaders removes the values of the request headers (credentials
// expanded from ${env:NAME}, and the token after a scheme such as Bearer)
// from an error built from the server's answer: a server that echoes what
// it was sent must not put them in a result.
func scrubHeaders(err error, h http.Header) error {
	var re *retrieve.Error
	if !errors.As(err, &re) {
		return err
	}
	for name, vals := range h {
		if name == "Accept" || name == "If-None-Match" || name == "If-Modified-Since" {
			continue
		}
		for _, v := range vals {
			fields := strings.Fields(v)
			if len(fields) == 0 {
				continue
			}
			for _, secret := range []string{v, fields[len(fields)-1]} {
				if len(secret) >= 4 {
					re.Message = strings.ReplaceAll(re.Message, secret, retrieve.Redacted)
				}
			}
		}
	}
	return re
}

type page struct {
	url  string
	hash string
	body []byte
	resp *webclient.Response
}

// Fetch implements retrieve.Source.
func (s *Source) Fetch(ctx context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	doc, err := s.fetch(ctx, req)
	if err != nil || req.Constraints.Version == "" {
		return doc, err
	}
	have := ""
	if doc.Version != nil {
		have = *doc.Version
	}
	if have != req.Constraints.Version && strings.Trim(have, `"`) != strings.Trim(req.Constraints.Version, `"`) {
		if doc.Body != nil {
			doc.Body.Close()
		}
		return nil, retrieve.Errorf(retrieve.CodeVersionNotFound, "%s is at version %q, not %q", doc.Locator, have, req.Constraints.Version).
			WithHint("an API serves only its current version; drop --version, or use --fallback snapshot for what was recorded")
	}
	return doc, nil
}

func (s *Source) fetch(ctx context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	c, err := s.plan(req)
	if err != nil {
		return nil, err
	}
	ctx = webclient.WithAllow(ctx, req.Web.AllowHosts)
	doc := s.newDocument(c)
	if rec := s.headerRecord(c.u, req.Web.Headers); len(rec) > 0 {
		doc.Metadata[retrieve.MetaRequestHeaders] = rec
	}
	if c.single && s.opts.Cache != nil {
		c.prev, _ = s.opts.Cache.Lookup(ctx, s.Kind(), req.Target, mode)
	}
	done, err := s.withinMaxAge(doc, c, req.Web.MaxAge)
	if err != nil {
		return nil, err
	}
	if done {
		return doc, nil
	}
	got, next, revalidated, err := s.readPages(ctx, req, c, doc)
	if err != nil {
		return nil, err
	}
	if revalidated {
		return doc, nil
	}
	first := got[0].resp
	describeResponse(doc, first)
	if c.method == http.MethodHead {
		doc.Data = map[string]any{"status": first.Status, "headers": safeHeaders(first.Header)}
		doc.Anchors = []string{doc.Locator}
		return doc, nil
	}
	doc.Anchors = make([]string, len(got))
	for i, p := range got {
		doc.Anchors[i] = p.url + "#sha256=" + strings.TrimPrefix(p.hash, "sha256:")
	}
	if next != "" {
		doc.Incomplete = true
		doc.Metadata["next_page"] = webclient.RedactURL(next)
		doc.Next = webclient.RedactURL(next)
		if c.pages > 1 {
			doc.Next += fmt.Sprintf("#pages=%d", c.pages) // the next part, as many pages
		}
		doc.Assumptions = append(doc.Assumptions, fmt.Sprintf("More pages exist after %d (Link rel=\"next\"); raise --pages to read them", len(got)))
	}
	if len(got) == 1 {
		s.onePage(doc, req, c, got[0], next == "")
		return doc, nil
	}
	if err := joinPages(doc, got); err != nil {
		return nil, err
	}
	return doc, nil
}

// call is what a request asks of the api source, checked: the URL, the
// method, how many pages, the byte cap, and whether it is a single GET
// (the only kind revalidated against a snapshot, prev).
type call struct {
	u      *url.URL
	method string
	pages  int
	// transferCap caps each response body (the source's cap; max_bytes
	// caps the data returned, not the download).
	transferCap int64
	single      bool
	prev        *webclient.Cached
}

// plan checks the request's URL, method and paging.
func (s *Source) plan(req *retrieve.Request) (*call, error) {
	u, err := url.Parse(req.Target)
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "%q is not a valid URL", webclient.RedactURL(req.Target)).
			WithHint("pass an absolute URL such as https://api.example.com/v1/items")
	}
	if err := webclient.CheckScheme(u); err != nil {
		return nil, err
	}
	c := &call{u: u, method: strings.ToUpper(req.Web.Method), pages: req.Web.Pages, transferCap: s.opts.TransferCap}
	if c.method == "" {
		c.method = http.MethodGet
	}
	if c.method != http.MethodGet && c.method != http.MethodHead {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "method %s is refused: the api source sends GET and HEAD only", c.method).
			WithHint("retrieve reads; it never changes a remote resource")
	}
	if c.pages <= 0 {
		c.pages = 1
	}
	if c.pages > MaxPages {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "--pages %d is more than %d", c.pages, MaxPages).WithHint("narrow the query instead")
	}
	c.single = c.pages == 1 && c.method == http.MethodGet
	return c, nil
}

// newDocument is the document of a call before anything is read.
func (s *Source) newDocument(c *call) *retrieve.Document {
	locator := webclient.RedactURL(c.u.String())
	if c.pages > 1 {
		// A read of several Link pages is cited with their count, a
		// fragment never sent: the reference is a target that reads the
		// same pages (docs/web.md).
		locator += fmt.Sprintf("#pages=%d", c.pages)
	}
	doc := &retrieve.Document{
		Locator:  locator,
		Label:    "api:" + c.u.Host,
		Volatile: true, // a response changes: its snapshots go stale
		// A span is cited as a text fragment of the URL, which takes no line suffix.
		TextFragments: true,
		Reliability:   "JSON API endpoint read over HTTP",
		Metadata:      map[string]any{"method": c.method},
		Authority:     s.authority(c.u),
	}
	if doc.Authority == retrieve.AuthorityLow {
		doc.Assumptions = append(doc.Assumptions, "Fetched over plain http: the content could have been altered in transit (low authority)")
	}
	return doc
}

// withinMaxAge serves doc from the snapshot when it is younger than
// --max-age (done), without sending a request.
func (s *Source) withinMaxAge(doc *retrieve.Document, c *call, maxAgeFlag string) (done bool, err error) {
	if maxAgeFlag == "" {
		return false, nil
	}
	maxAge, err := time.ParseDuration(maxAgeFlag)
	if err != nil || maxAge < 0 {
		return false, retrieve.Errorf(retrieve.CodeInputValidation, "--max-age %q is not a duration", maxAgeFlag).WithHint("write it as a Go duration: 10m, 24h")
	}
	if c.prev == nil {
		return false, nil
	}
	age := time.Since(c.prev.At)
	if age > maxAge {
		return false, nil
	}
	s.fromCache(doc, c.prev)
	doc.RetrievedFrom, doc.Age = retrieve.FromSnapshot, age
	doc.Assumptions = append(doc.Assumptions, fmt.Sprintf("Served from the snapshot fetched %s ago, within --max-age %s; no request was sent", age.Round(time.Second), maxAge))
	return true, nil
}

// readPages sends the requests, following Link rel="next" up to the
// call's pages; next is the page after the last one read. When the
// snapshot is still current (304), doc is filled from it and revalidated
// is true.
func (s *Source) readPages(ctx context.Context, req *retrieve.Request, c *call, doc *retrieve.Document) (got []page, next string, revalidated bool, err error) {
	next = c.u.String()
	for len(got) < c.pages && next != "" {
		nu, err := url.Parse(next)
		if err != nil {
			return nil, "", false, retrieve.Errorf(retrieve.CodeUpstreamStatus, "the next-page link %q is not a URL", webclient.RedactURL(next))
		}
		hdr, err := s.headers(nu, req.Web.Headers)
		if err != nil {
			return nil, "", false, err
		}
		if c.single {
			webclient.Conditional(hdr, c.prev)
		}
		resp, err := s.opts.Client.Do(ctx, webclient.Request{Method: c.method, URL: next, Header: hdr, TransferCap: c.transferCap})
		if err != nil {
			return nil, "", false, err
		}
		if resp.Status == http.StatusNotModified && c.single && c.prev != nil {
			s.revalidate(doc, req, c.prev, resp)
			return nil, "", true, nil
		}
		pageCite := webclient.RedactURL(next)
		if resp.Status < 200 || resp.Status > 299 {
			return nil, "", false, scrubHeaders(webclient.StatusError(resp, pageCite), hdr)
		}
		if resp.Truncated {
			return nil, "", false, retrieve.Errorf(retrieve.CodeTooLarge, "%s is larger than %d bytes (the transfer cap, web.transfer_cap)", pageCite, c.transferCap).
				WithHint("JSON cut in the middle cannot be parsed; raise web.transfer_cap (or --max-bytes if you set it lower) or narrow the query")
		}
		got = append(got, page{url: pageCite, hash: retrieve.HashBytes(resp.Body), body: resp.Body, resp: resp})
		next = ""
		if c.method == http.MethodGet {
			next = nextPage(nu, resp.Header.Get("Link"))
		}
	}
	return got, next, false, nil
}

// nextPage is the Link rel="next" of a page, resolved against its URL.
func nextPage(u *url.URL, link string) string {
	if link == "" {
		return ""
	}
	n := webclient.NextLink(link)
	if n == "" {
		return ""
	}
	ref, err := u.Parse(n)
	if err != nil {
		return ""
	}
	return ref.String()
}

// revalidate fills doc from the snapshot the server said is current (304)
// and remembers that it was checked now.
func (s *Source) revalidate(doc *retrieve.Document, req *retrieve.Request, prev *webclient.Cached, resp *webclient.Response) {
	s.fromCache(doc, prev)
	doc.RetrievedFrom = retrieve.FromRevalidated
	if v := webclient.Version(resp.Header); v != nil {
		doc.Version = v
	}
	if rm, ok := s.opts.Cache.(webclient.Rememberer); ok {
		again := *prev
		again.At = time.Now()
		rm.Remember(s.Kind(), req.Target, mode, &again)
	}
}

// describeResponse records the first response's version and headers.
func describeResponse(doc *retrieve.Document, first *webclient.Response) {
	doc.Version = webclient.Version(first.Header)
	doc.LastModified = webclient.LastModified(first.Header)
	doc.Metadata["status"] = first.Status
	doc.Metadata["final_url"] = webclient.RedactURL(first.FinalURL)
	if ct := first.Header.Get("Content-Type"); ct != "" {
		doc.Metadata["content_type"] = ct
	}
}

// onePage makes doc the body of one page, and remembers it for the next
// revalidation when it is a single GET with validators and no next page.
func (s *Source) onePage(doc *retrieve.Document, req *retrieve.Request, c *call, p page, last bool) {
	first := p.resp
	if mt, _, _ := mime.ParseMediaType(first.Header.Get("Content-Type")); mt != "" && mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		doc.Assumptions = append(doc.Assumptions, fmt.Sprintf("The endpoint answered %s; it is read as JSON", mt))
	}
	doc.Format = "json"
	doc.Body = io.NopCloser(bytes.NewReader(p.body))
	doc.Size = int64(len(p.body))
	doc.Metadata[webclient.MetaMode] = mode
	doc.Metadata[webclient.MetaBodyFormat] = "json"
	et, lm := first.Header.Get("ETag"), first.Header.Get("Last-Modified")
	if et != "" {
		doc.Metadata[webclient.MetaETag] = et
	}
	if lm != "" {
		doc.Metadata[webclient.MetaLastModified] = lm
	}
	rm, ok := s.opts.Cache.(webclient.Rememberer)
	if !ok || !c.single || !last || (et == "" && lm == "") {
		return
	}
	md := make(map[string]any, len(doc.Metadata))
	for k, v := range doc.Metadata {
		md[k] = v
	}
	rm.Remember(s.Kind(), req.Target, mode, &webclient.Cached{Body: p.body, ETag: et, LastModified: lm, At: time.Now(), Format: "json", Metadata: md})
}

// joinPages makes doc's data of several pages: their arrays concatenated,
// or, when a page is not an array, the array of the pages.
func joinPages(doc *retrieve.Document, got []page) error {
	values := make([]any, len(got))
	pageMeta := make([]any, len(got))
	allArrays := true
	for i, p := range got {
		pageMeta[i] = map[string]any{"url": p.url, "hash": p.hash}
		v, err := extract.Parse(p.body, "json")
		if err != nil {
			return retrieve.Errorf(retrieve.CodeParseFailed, "page %d (%s) is not JSON", i+1, p.url).WithErr(err).
				WithHint("the api source reads JSON; use the web source for other content")
		}
		values[i] = v
		if _, ok := v.([]any); !ok {
			allArrays = false
		}
	}
	doc.Metadata["pages"] = pageMeta
	doc.Format = "json"
	if !allArrays {
		doc.Data = values
		doc.Assumptions = append(doc.Assumptions, fmt.Sprintf("%d pages were read; data is the array of the pages", len(got)))
		return nil
	}
	all := []any{}
	for _, v := range values {
		all = append(all, v.([]any)...)
	}
	doc.Data = all
	doc.Assumptions = append(doc.Assumptions, fmt.Sprintf("%d pages were read and their arrays concatenated", len(got)))
	return nil
}

// fromCache fills doc from a snapshot: the stored JSON, as it was.
func (s *Source) fromCache(doc *retrieve.Document, prev *webclient.Cached) {
	for k, v := range prev.Metadata {
		doc.Metadata[k] = v
	}
	doc.Format = "json"
	doc.Body = io.NopCloser(bytes.NewReader(prev.Body))
	doc.Size = int64(len(prev.Body))
	doc.Anchors = []string{doc.Locator + "#sha256=" + strings.TrimPrefix(retrieve.HashBytes(prev.Body), "sha256:")}
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
}

func (s *Source) authority(u *url.URL) retrieve.Authority {
	if u.Scheme != "https" {
		return retrieve.AuthorityLow
	}
	if s.high[strings.ToLower(u.Hostname())] {
		return retrieve.AuthorityHigh
	}
	return retrieve.AuthorityMedium
}

// safeHeaders returns response headers without cookies or credentials.
func safeHeaders(h http.Header) map[string]any {
	out := map[string]any{}
	for k, v := range h {
		lk := strings.ToLower(k)
		if lk == "set-cookie" || webclient.SensitiveName(lk) || strings.Contains(lk, "token") {
			continue
		}
		out[k] = strings.Join(v, ", ")
	}
	return out
}
