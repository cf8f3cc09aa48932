// Package webclient is the one HTTP client of the web and api sources: an
// address guard at dial time (every redirect, after DNS resolution, so DNS
// rebinding does not pass), http and https only, at most five redirects,
// per-host rate limits, retries with exponential backoff and jitter
// honouring Retry-After, connect and total timeouts, and a body cap counted
// after decompression.
package webclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/retrieve-dev/retrieve"
	"golang.org/x/time/rate"
)

// Defaults of a Client.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultTimeout        = 30 * time.Second
	DefaultMaxRedirects   = 5
	DefaultTransferCap    = 10 << 20
	DefaultRetries        = 2
	DefaultRate           = 5 // requests per second per host
	DefaultBurst          = 5
	// maxRetryWait caps a Retry-After the client is willing to sleep.
	maxRetryWait = 10 * time.Second
)

// Options configure a Client. The zero value is safe: the guard on, the
// defaults above.
type Options struct {
	UserAgent      string
	ConnectTimeout time.Duration
	Timeout        time.Duration
	MaxRedirects   int
	// Retries is the number of retries after the first attempt (0 = default,
	// negative = none).
	Retries int
	// Rate and Burst limit requests per host (0 = default; negative Rate =
	// unlimited).
	Rate  float64
	Burst int
	// Allow lists hosts or address prefixes the guard lets through.
	Allow []string
	// Resolver replaces the system resolver (tests).
	Resolver Resolver
	// Control runs after the guard on every dial, before connecting (tests
	// install a tripwire here).
	Control func(network, address string, c syscall.RawConn) error
	// BackoffBase is the first retry delay (default 250 ms).
	BackoffBase time.Duration
	// Ports maps a port to another once the guard has passed the address
	// (tests: a name's https port 443 to a loopback test server's port).
	Ports map[string]string
	// RootCAs replaces the system's trusted certificates (tests).
	RootCAs *x509.CertPool
}

// Client is safe for concurrent use.
type Client struct {
	opts     Options
	allow    *Allow
	resolver Resolver
	hc       *http.Client
	mu       sync.Mutex
	limits   map[string]*rate.Limiter
}

// New returns a Client.
func New(opts Options) *Client {
	if opts.UserAgent == "" {
		opts.UserAgent = "retrieve/" + retrieve.Version
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = DefaultConnectTimeout
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxRedirects <= 0 {
		opts.MaxRedirects = DefaultMaxRedirects
	}
	if opts.Retries == 0 {
		opts.Retries = DefaultRetries
	}
	if opts.Rate == 0 {
		opts.Rate = DefaultRate
	}
	if opts.Burst <= 0 {
		opts.Burst = DefaultBurst
	}
	if opts.BackoffBase <= 0 {
		opts.BackoffBase = 250 * time.Millisecond
	}
	c := &Client{opts: opts, allow: ParseAllow(opts.Allow), resolver: opts.Resolver, limits: map[string]*rate.Limiter{}}
	if c.resolver == nil {
		c.resolver = net.DefaultResolver
	}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would bypass the guard
		DialContext:           c.dial,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   opts.ConnectTimeout,
		ResponseHeaderTimeout: opts.Timeout,
	}
	if opts.RootCAs != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: opts.RootCAs, MinVersion: tls.VersionTLS12}
	}
	c.hc = &http.Client{Transport: &limited{c: c, base: tr}, CheckRedirect: c.checkRedirect}
	return c
}

// guardError is a refusal of the guard, recognised through url.Error chains.
type guardError struct{ err *retrieve.Error }

func (g *guardError) Error() string { return g.err.Error() }
func (g *guardError) Unwrap() error { return g.err }

func blockedErr(host string, ip netip.Addr, why string) error {
	msg := fmt.Sprintf("%s resolves to %s, a %s address, which is refused", host, ip, why)
	if strings.Trim(host, "[]") == ip.String() {
		msg = fmt.Sprintf("%s is a %s address, which is refused", host, why)
	}
	return &guardError{retrieve.Errorf(retrieve.CodeBlockedAddress, "%s", msg).
		WithHint("only public addresses are fetched by default; allow a trusted host with --allow-host %s or web.allow_hosts in .retrieve/config.yaml", host)}
}

// dial resolves the host, refuses blocked addresses, and dials the checked
// address itself (never the name again, so a second DNS answer cannot
// differ). The dialer's Control hook checks the address once more.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	allow := c.allow.merge(nil)
	if extra := allowFrom(ctx); extra != nil {
		allow = extra.merge(nil)
		allow.hosts, allow.prefixes = mergeMaps(allow.hosts, c.allow.hosts), append(allow.prefixes, c.allow.prefixes...)
	}
	hostAllowed := allow.Host(host)
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		ips = []netip.Addr{ip}
	} else if ip, ok := LegacyIPv4(host); ok {
		// 0x7f000001, 2130706433, 127.1, 0177.0.0.1: what inet_aton and
		// browsers take for an address; never a name to look up.
		ips = []netip.Addr{ip}
	} else {
		ips, err = c.resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, err
		}
	}
	if p, ok := c.opts.Ports[port]; ok {
		port = p
	}
	var firstErr error
	for _, ip := range ips {
		if bad, why := Blocked(ip); bad && !hostAllowed && !allow.Addr(ip) {
			if firstErr == nil {
				firstErr = blockedErr(host, ip, why)
			}
			continue
		}
		d := &net.Dialer{Timeout: c.opts.ConnectTimeout, Control: func(nw, address string, rc syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("guard: unparsable address %q", address)
			}
			if bad, why := Blocked(ap.Addr()); bad && !hostAllowed && !allow.Addr(ap.Addr()) {
				return blockedErr(host, ap.Addr(), why)
			}
			if c.opts.Control != nil {
				return c.opts.Control(nw, address, rc)
			}
			return nil
		}}
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("no address for %s", host)
	}
	return nil, firstErr
}

func mergeMaps(a, b map[string]bool) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// CheckScheme refuses anything but http and https.
func CheckScheme(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return retrieve.Errorf(retrieve.CodeBlockedAddress, "scheme %q is refused: only http and https are fetched", u.Scheme).
			WithHint("pass an http:// or https:// URL")
	}
	if u.Host == "" {
		return retrieve.Errorf(retrieve.CodeInputValidation, "URL %q has no host", u.Redacted()).WithHint("pass an absolute URL such as https://example.com/page")
	}
	return nil
}

type redirectsKey struct{}

type redirectCheckKey struct{}

// WithRedirectCheck returns a context whose requests call check before
// following every redirect (the web source checks robots.txt there).
func WithRedirectCheck(ctx context.Context, check func(context.Context, *url.URL) error) context.Context {
	return context.WithValue(ctx, redirectCheckKey{}, check)
}

func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > c.opts.MaxRedirects {
		return &guardError{retrieve.Errorf(retrieve.CodeUpstreamStatus, "more than %d redirects", c.opts.MaxRedirects).
			WithHint("retrieve the final URL directly")}
	}
	if err := CheckScheme(req.URL); err != nil {
		return &guardError{retrieve.AsError(err)}
	}
	if check, ok := req.Context().Value(redirectCheckKey{}).(func(context.Context, *url.URL) error); ok {
		if err := check(req.Context(), req.URL); err != nil {
			return &guardError{retrieve.AsError(err)}
		}
	}
	if rec, ok := req.Context().Value(redirectsKey{}).(*[]string); ok {
		*rec = append(*rec, req.URL.String())
	}
	return nil
}

// limited waits for the per-host limiter before every request, redirects
// included.
type limited struct {
	c    *Client
	base http.RoundTripper
}

func (l *limited) RoundTrip(r *http.Request) (*http.Response, error) {
	if allowFrom(r.Context()) != nil && !r.Close {
		// A connection dialled under a per-request allow must not serve
		// later requests that lack it: close it after this response.
		r = r.Clone(r.Context())
		r.Close = true
	}
	if lim := l.c.limiter(r.URL.Host); lim != nil {
		if err := lim.Wait(r.Context()); err != nil {
			return nil, err
		}
	}
	return l.base.RoundTrip(r)
}

func (c *Client) limiter(host string) *rate.Limiter {
	if c.opts.Rate < 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	l, ok := c.limits[host]
	if !ok {
		l = rate.NewLimiter(rate.Limit(c.opts.Rate), c.opts.Burst)
		c.limits[host] = l
	}
	return l
}

// Request is one HTTP request.
type Request struct {
	Method string // GET (default) or HEAD
	URL    string
	Header http.Header
	// TransferCap caps the body, counted after decompression (default 10 MiB).
	TransferCap int64
}

// Response is a response with its body read (up to the cap).
type Response struct {
	Status    int
	Header    http.Header
	FinalURL  string
	Redirects []string
	Body      []byte
	// Truncated is true when the body was cut at TransferCap.
	Truncated bool
	Attempts  int
	Elapsed   time.Duration
}

// Do sends req with retries (GET and HEAD only, which are idempotent) on
// network errors, 429 and 5xx, and reads the body within the total timeout.
// The caller handles non-2xx statuses; errors are *retrieve.Error with
// BLOCKED_ADDRESS, TIMEOUT, RATE_LIMITED or UPSTREAM_STATUS.
func (c *Client) Do(ctx context.Context, req Request) (*Response, error) {
	if req.Method == "" {
		req.Method = http.MethodGet
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "method %s is refused: only GET and HEAD are sent", req.Method).
			WithHint("retrieve only reads; use GET or HEAD")
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "%q is not a valid URL", req.URL).WithErr(err).WithHint("pass an absolute http(s) URL")
	}
	if err := CheckScheme(u); err != nil {
		return nil, err
	}
	if req.TransferCap <= 0 {
		req.TransferCap = DefaultTransferCap
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	var last *Response
	for attempt := 0; ; attempt++ {
		resp, err := c.once(ctx, req)
		retry, wait := c.shouldRetry(resp, err, attempt)
		if resp != nil {
			resp.Attempts = attempt + 1
			last = resp
		}
		if !retry {
			if err != nil {
				return nil, c.classify(ctx, u, err)
			}
			resp.Elapsed = time.Since(start)
			return resp, nil
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			if last != nil && last.Status == http.StatusTooManyRequests {
				resp.Elapsed = time.Since(start)
				return last, nil
			}
			if err != nil {
				return nil, c.classify(ctx, u, err)
			}
			return last, nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, c.classify(ctx, u, ctx.Err())
		case <-t.C:
		}
	}
}

func (c *Client) shouldRetry(resp *Response, err error, attempt int) (bool, time.Duration) {
	if attempt >= c.opts.Retries || c.opts.Retries < 0 {
		return false, 0
	}
	backoff := c.opts.BackoffBase << attempt
	backoff += time.Duration(rand.Int64N(int64(backoff)/2 + 1)) // jitter
	if err != nil {
		var g *guardError
		if errors.As(err, &g) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return false, 0
		}
		return true, backoff
	}
	if resp.Status == http.StatusTooManyRequests || resp.Status >= 500 {
		if ra, ok := RetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			if ra > maxRetryWait {
				return false, 0
			}
			return true, ra
		}
		return true, backoff
	}
	return false, 0
}

func (c *Client) once(ctx context.Context, req Request) (*Response, error) {
	var redirects []string
	ctx = context.WithValue(ctx, redirectsKey{}, &redirects)
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, nil)
	if err != nil {
		return nil, err
	}
	for k, vs := range req.Header {
		for _, v := range vs {
			hr.Header.Add(k, v)
		}
	}
	hr.Header.Set("User-Agent", c.opts.UserAgent)
	resp, err := c.hc.Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := &Response{Status: resp.StatusCode, Header: resp.Header, FinalURL: resp.Request.URL.String(), Redirects: redirects}
	// The transport decompresses gzip itself; the cap counts the
	// decompressed bytes, so a gzip bomb stops at TransferCap.
	body, err := io.ReadAll(io.LimitReader(resp.Body, req.TransferCap+1))
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > req.TransferCap {
		body = body[:req.TransferCap]
		out.Truncated = true
	}
	out.Body = body
	return out, nil
}

// classify turns a transport error into a coded error.
func (c *Client) classify(ctx context.Context, u *url.URL, err error) error {
	var g *guardError
	if errors.As(err, &g) {
		return g.err
	}
	var re *retrieve.Error
	if errors.As(err, &re) {
		return re
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() == context.DeadlineExceeded || (errors.As(err, &ne) && ne.Timeout()) {
		return retrieve.Errorf(retrieve.CodeTimeout, "%s did not answer within %s", u.Host, c.opts.Timeout).WithErr(err).
			WithHint("try again later, or raise web.timeout in .retrieve/config.yaml")
	}
	if errors.Is(err, context.Canceled) {
		return retrieve.Errorf(retrieve.CodeCanceled, "the request to %s was canceled", u.Host).WithErr(err)
	}
	return retrieve.Errorf(retrieve.CodeUpstreamStatus, "%s could not be reached: %s", u.Host, shortNetErr(err)).WithErr(err).
		WithHint("check the URL and the network; --fallback snapshot serves the last snapshot")
}

func shortNetErr(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Op + ": " + op.Err.Error()
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "DNS: " + dns.Err
	}
	return "connection failed"
}

// RetryAfter parses a Retry-After value: delay seconds or an HTTP date.
func RetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 || n > 1<<31 {
			return 0, false
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}
