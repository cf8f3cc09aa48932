package webclient

import (
	"net/http"
	"strings"

	"github.com/pquerna/cachecontrol/cacheobject"
)

// NoStore says why a response must not be kept — snapshotted, recorded
// with its data, served again from the ledger — or "" when it may be.
// The rules are HTTP caching's (RFC 9111, read by
// github.com/pquerna/cachecontrol): "no-store" forbids any store;
// "private" forbids a shared one (shared: the ledger is PostgreSQL's,
// read by several users); "Vary: *" means no stored copy can match a
// later request. Uncacheable-by-default responses (no validators, no
// max-age) are kept: a snapshot is provenance, not an HTTP cache entry.
func NoStore(h http.Header, shared bool) string {
	dir, err := cacheobject.ParseResponseCacheControl(h.Get("Cache-Control"))
	switch {
	case err != nil && strings.Contains(strings.ToLower(h.Get("Cache-Control")), "no-store"):
		return "Cache-Control: no-store"
	case err == nil && dir.NoStore:
		return "Cache-Control: no-store"
	case err == nil && shared && dir.PrivatePresent:
		return "Cache-Control: private (this store is shared)"
	case strings.TrimSpace(h.Get("Vary")) == "*":
		return "Vary: *"
	}
	return ""
}
