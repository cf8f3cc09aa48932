package webclient

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/retrieve-dev/retrieve"
)

// Redacted is the placeholder of a redacted value (retrieve.Redacted).
const Redacted = retrieve.Redacted

// RedactURL is retrieve.RedactURL: userinfo removed, token-like query
// values replaced with REDACTED.
func RedactURL(raw string) string { return retrieve.RedactURL(raw) }

// SensitiveName is retrieve.SensitiveName.
func SensitiveName(name string) bool { return retrieve.SensitiveName(name) }

// StatusError turns a non-2xx response into UPSTREAM_STATUS (RATE_LIMITED
// for 429) with the status and a short excerpt of the body.
func StatusError(resp *Response, citeURL string) error {
	if resp.Status == http.StatusTooManyRequests {
		ra := strings.TrimSpace(resp.Header.Get("Retry-After"))
		e := retrieve.Errorf(retrieve.CodeRateLimited, "%s answered 429 Too Many Requests", citeURL)
		if d, ok := RetryAfter(ra, time.Now()); ok {
			e.Message += fmt.Sprintf(" (Retry-After: %s)", ra)
			return e.WithHint("wait %s before retrying; retrieve already retried %d times", d.Round(time.Second), resp.Attempts-1)
		}
		return e.WithHint("wait before retrying; the server gave no Retry-After")
	}
	msg := fmt.Sprintf("%s answered %d %s", citeURL, resp.Status, http.StatusText(resp.Status))
	if ex := Excerpt(resp.Body, 200); ex != "" {
		msg += ": " + ex
	}
	hint := "check the URL"
	switch {
	case resp.Status == 401 || resp.Status == 403:
		hint = "the endpoint needs credentials: pass --header 'Authorization: Bearer ${env:TOKEN}' or set api.headers in .retrieve/config.yaml"
	case resp.Status >= 500:
		hint = "the server failed (retried with backoff); try again later, or use --fallback snapshot"
	case resp.Status == 404 || resp.Status == 410:
		hint = "the page does not exist (any more); --fallback snapshot serves the last snapshot if there is one"
	}
	return retrieve.Errorf(retrieve.CodeUpstreamStatus, "%s", msg).WithHint("%s", hint)
}

// Excerpt returns the first n characters of b on one line, control
// characters removed.
func Excerpt(b []byte, n int) string {
	var sb strings.Builder
	count := 0
	space := false
	for _, r := range string(b) {
		if count >= n {
			sb.WriteString("…")
			break
		}
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			if !space && sb.Len() > 0 {
				sb.WriteByte(' ')
				count++
			}
			space = true
			continue
		}
		space = false
		sb.WriteRune(r)
		count++
	}
	return strings.TrimSpace(sb.String())
}

// The provenance.metadata keys that the web and api sources write and a
// Cache reads back from a recorded result to revalidate it.
const (
	// MetaMode is the retrieval mode (readability, raw, select:…, html, api).
	MetaMode = "web_mode"
	// MetaETag is the response's ETag header.
	MetaETag = "etag"
	// MetaLastModified is the response's Last-Modified header.
	MetaLastModified = "last_modified_header"
	// MetaBodyFormat is the format of the body handed to the engine.
	MetaBodyFormat = "body_format"
)

// Cached is the last recorded retrieval of a URL, kept in the snapshot
// store: the body as it was handed to the engine, and the validators.
type Cached struct {
	Body         []byte
	ETag         string
	LastModified string
	// At is when the snapshot was last fetched or revalidated.
	At         time.Time
	SourceHash string
	Format     string
	Metadata   map[string]any
}

// Cache finds the last snapshot of a URL retrieved by a source kind in a
// mode (readability, raw, select:…, html, api). Lookup returns nil, nil
// when there is none.
type Cache interface {
	Lookup(ctx context.Context, kind, target, mode string) (*Cached, error)
}

// Rememberer is an optional interface of a Cache: the source hands it what
// it just fetched (the body as handed to the engine) so that the next
// lookup in this process needs no store query.
type Rememberer interface {
	Remember(kind, target, mode string, c *Cached)
}

// Conditional adds If-None-Match / If-Modified-Since from c.
func Conditional(h http.Header, c *Cached) {
	if c == nil {
		return
	}
	if c.ETag != "" {
		h.Set("If-None-Match", c.ETag)
	}
	if c.LastModified != "" {
		h.Set("If-Modified-Since", c.LastModified)
	}
}

// Version is the citation version of a response: the ETag, else the
// Last-Modified header; nil when there is neither.
func Version(h http.Header) *string {
	if v := h.Get("ETag"); v != "" {
		return &v
	}
	if v := h.Get("Last-Modified"); v != "" {
		return &v
	}
	return nil
}

// LastModified parses the Last-Modified header.
func LastModified(h http.Header) *time.Time {
	if t, err := http.ParseTime(h.Get("Last-Modified")); err == nil {
		t = t.UTC()
		return &t
	}
	return nil
}
