package retrieve

import (
	"net/url"
	"strings"
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
