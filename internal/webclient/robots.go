package webclient

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/temoto/robotstxt"
)

// robotsTTL is how long a robots.txt answer is cached per host.
const robotsTTL = time.Hour

// robotsMaxBytes caps robots.txt (RFC 9309 asks parsers to handle at least
// 500 KiB).
const robotsMaxBytes = 500 << 10

// Robots caches robots.txt per scheme and host and answers RFC 9309:
// 2xx is parsed, 4xx allows everything, 5xx or unreachable disallows
// everything.
type Robots struct {
	c     *Client
	agent string
	mu    sync.Mutex
	cache map[string]*robotsEntry
}

type robotsEntry struct {
	once    sync.Once
	data    *robotstxt.RobotsData
	allow   bool // when data is nil: allow all (true) or disallow all
	reason  string
	expires time.Time
}

// NewRobots returns a robots.txt checker that fetches through c and
// matches the product token agent ("retrieve").
func NewRobots(c *Client, agent string) *Robots {
	return &Robots{c: c, agent: agent, cache: map[string]*robotsEntry{}}
}

// Check returns ROBOTS_DISALLOWED when robots.txt of u's host disallows u.
func (r *Robots) Check(ctx context.Context, u *url.URL) error {
	key := u.Scheme + "://" + u.Host
	r.mu.Lock()
	e, ok := r.cache[key]
	if !ok || time.Now().After(e.expires) && !e.expires.IsZero() {
		e = &robotsEntry{}
		r.cache[key] = e
	}
	r.mu.Unlock()
	e.once.Do(func() { r.load(ctx, key, e) })
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("robots.txt of %s: %w", u.Host, err)
	}
	allowed := e.allow
	if e.data != nil {
		path := u.EscapedPath()
		if path == "" {
			path = "/"
		}
		if u.RawQuery != "" {
			path += "?" + u.RawQuery
		}
		allowed = e.data.TestAgent(path, r.agent)
	}
	if !allowed {
		return retrieve.Errorf(retrieve.CodeRobotsDisallowed, "robots.txt of %s disallows %s for %s%s", u.Host, u.EscapedPath(), r.agent, e.reason).
			WithHint("respect the site's wishes, or pass --ignore-robots if you have the right to fetch it (the result will say so)")
	}
	return nil
}

func (r *Robots) load(ctx context.Context, key string, e *robotsEntry) {
	// Check reads expires under r.mu, while this load may still run: it is
	// written under r.mu too, once the entry is complete. A zero expires
	// (loading) keeps the entry shared.
	expires := time.Now().Add(robotsTTL)
	defer func() {
		r.mu.Lock()
		e.expires = expires
		r.mu.Unlock()
	}()
	// robots.txt's own redirects are not checked against robots.txt.
	ctx = context.WithValue(ctx, redirectCheckKey{}, struct{}{})
	resp, err := r.c.Do(ctx, Request{URL: key + "/robots.txt", TransferCap: robotsMaxBytes})
	switch {
	case err != nil && ctx.Err() != nil:
		// This request was canceled: nothing is learnt about the site, and
		// nothing is kept for the next one.
		e.allow = false
		expires = time.Now()
	case err != nil:
		if retrieve.ErrorCode(err) == retrieve.CodeBlockedAddress {
			// The page itself will be refused with the precise error.
			e.allow = true
			expires = time.Now()
			return
		}
		e.allow, e.reason = false, " (robots.txt unreachable: disallowed per RFC 9309)"
		expires = time.Now().Add(time.Minute)
	case resp.Status >= 500:
		e.allow, e.reason = false, " (robots.txt answered a server error: disallowed per RFC 9309)"
		expires = time.Now().Add(time.Minute)
	case resp.Status >= 400:
		e.allow = true
	case resp.Status >= 200 && resp.Status < 300:
		d, perr := robotstxt.FromBytes(resp.Body)
		if perr != nil {
			e.allow = true
			return
		}
		e.data = d
	default:
		e.allow = true
	}
}
