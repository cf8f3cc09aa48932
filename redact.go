package retrieve

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// sensitiveParams are query parameter names whose values are redacted in
// citations (compared case-insensitively, also as suffixes such as
// "x-amz-signature" or "github_token").
var sensitiveParams = []string{
	"token", "access_token", "refresh_token", "id_token", "api_key", "apikey", "api-key", "key",
	"secret", "client_secret", "password", "passwd", "pwd", "auth", "authorization",
	"sig", "signature", "session", "sessionid", "jwt", "credential", "x-amz-credential",
	"x-amz-security-token", "code",
}

// Redacted is the placeholder of a redacted value.
const Redacted = "REDACTED"

// RedactURL removes userinfo and replaces the values of token-like query
// parameters with REDACTED, so a URL can be cited and logged. It keeps the
// rest of the URL byte for byte.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	changed := false
	if u.User != nil {
		u.User = nil
		changed = true
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			name, _, hasValue := strings.Cut(p, "=")
			dec, err := url.QueryUnescape(name)
			if err != nil {
				dec = name
			}
			if hasValue && SensitiveName(dec) {
				parts[i] = name + "=" + Redacted
				changed = true
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	if !changed {
		return raw
	}
	return u.String()
}

// SensitiveName reports whether a parameter or header name looks like it
// carries a credential.
func SensitiveName(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, s := range sensitiveParams {
		if n == s || strings.HasSuffix(n, "_"+s) || strings.HasSuffix(n, "-"+s) {
			return true
		}
	}
	return false
}

// ShownTarget is a requested target as results and the ledger echo it: a
// URL (scheme://…) without its userinfo and token-like query values; any
// other target as it is.
func ShownTarget(target string) string {
	if urlScheme(target) == "" {
		return target
	}
	return RedactURL(target)
}

// urlInText finds URLs with an authority in free text (messages, anchors
// such as url:https://…).
var urlInText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://[^\s"'<>\x60]+`) })

// RedactText redacts every URL inside s (see RedactURL).
func RedactText(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlInText().ReplaceAllStringFunc(s, RedactURL)
}

// redactValue redacts the strings of a JSON-like value, copying what it
// changes.
func redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return RedactText(x)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = redactValue(e)
		}
		return m
	case Filters:
		return Filters(redactValue(map[string]any(x)).(map[string]any))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactValue(e)
		}
		return out
	case []string:
		out := make([]string, len(x))
		for i, e := range x {
			out[i] = RedactText(e)
		}
		return out
	}
	return v
}

// RedactSecrets removes URL credentials and token-like query parameters
// from every field of r that names a place — target, source, reference,
// anchors, assumptions, applied filters, metadata, the error — so that
// no secret is returned, recorded or logged. The data itself is what the
// source holds and is left as it is (its hash must stay checkable).
func (r *Result) RedactSecrets() {
	r.Retrieved.Target = RedactText(r.Retrieved.Target)
	r.Retrieved.Source = RedactText(r.Retrieved.Source)
	r.Citation.Reference = RedactText(r.Citation.Reference)
	for i, a := range r.EvidenceAnchors {
		r.EvidenceAnchors[i] = RedactText(a)
	}
	for i, a := range r.Assumptions {
		r.Assumptions[i] = RedactText(a)
	}
	if r.Extraction.AppliedFilters != nil {
		r.Extraction.AppliedFilters = redactValue(r.Extraction.AppliedFilters).(Filters)
	}
	if r.Extraction.Next != nil {
		n := RedactText(*r.Extraction.Next)
		r.Extraction.Next = &n
	}
	if r.Provenance.Metadata != nil {
		r.Provenance.Metadata = redactValue(r.Provenance.Metadata).(map[string]any)
	}
	if r.Error != nil {
		e := *r.Error
		e.Message, e.Hint = RedactText(e.Message), RedactText(e.Hint)
		e.Alternatives = redactValue(e.Alternatives).([]string)
		r.Error = &e
	}
}

// RedactRequest is req as it may be recorded: its target without
// credentials.
func RedactRequest(req Request) Request {
	req.Target = RedactText(req.Target)
	return req
}

// RedactRecordedJSON redacts URL credentials in the JSON of a recorded
// request or result (a ledger row written before redaction existed): every
// string but those under retrieved.data, which is the source's content.
// It returns b itself when nothing changes, and b when it is not JSON.
func RedactRecordedJSON(b []byte) []byte {
	if !bytes.Contains(b, []byte("://")) {
		return b
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return b
	}
	changed := false
	var walk func(v any, path []string) any
	walk = func(v any, path []string) any {
		if len(path) == 2 && path[0] == "retrieved" && path[1] == "data" {
			return v
		}
		switch x := v.(type) {
		case string:
			if r := RedactText(x); r != x {
				changed = true
				return r
			}
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e, append(path, k))
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e, append(path, "[]"))
			}
		}
		return v
	}
	v = walk(v, nil)
	if !changed {
		return b
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}
