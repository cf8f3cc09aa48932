package webclient

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
)

// fakeResolver answers names from a table; anything else is not found.
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	addrs, ok := f[strings.ToLower(host)]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]netip.Addr, len(addrs))
	for i, a := range addrs {
		out[i] = netip.MustParseAddr(a)
	}
	return out, nil
}

// tripwire is a dialer Control hook that refuses, before connecting, any
// address that is not loopback, and fails the test when one gets there: no
// test may send a packet off this machine, even with a broken guard.
func tripwire(t *testing.T, allowedOff *atomic.Int32) func(string, string, syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || !ap.Addr().Unmap().IsLoopback() {
			if allowedOff != nil {
				allowedOff.Add(1)
			} else {
				t.Errorf("tripwire: dial to non-loopback %s reached the dialer", address)
			}
			return fmt.Errorf("tripwire: refused %s", address)
		}
		return nil
	}
}

// newClient returns a client whose guard allows only 127.0.0.1 and the
// given names, with the fake resolver and the tripwire.
func newClient(t *testing.T, res fakeResolver, allow ...string) *Client {
	return New(Options{
		Allow:       append([]string{"127.0.0.1/32"}, allow...),
		Resolver:    res,
		Control:     tripwire(t, nil),
		Rate:        -1,
		BackoffBase: time.Millisecond,
		Timeout:     5 * time.Second,
	})
}

func code(err error) retrieve.Code { return retrieve.ErrorCode(err) }

func TestBlocked(t *testing.T) {
	for _, tc := range []struct {
		ip      string
		blocked bool
	}{
		{"127.0.0.1", true}, {"127.0.0.2", true}, {"::1", true}, {"10.0.0.1", true},
		{"172.16.5.4", true}, {"192.168.1.1", true}, {"169.254.169.254", true},
		{"100.64.0.1", true}, {"224.0.0.1", true}, {"0.0.0.0", true}, {"::", true},
		{"::ffff:127.0.0.1", true}, {"::ffff:8.8.8.8", true}, {"fd00::1", true}, {"fe80::1", true},
		{"fd00:ec2::254", true}, {"ff02::1", true}, {"255.255.255.255", true}, {"64:ff9b::a00:1", true},
		{"8.8.8.8", false}, {"93.184.216.34", false}, {"2606:4700::1111", false},
	} {
		got, why := Blocked(netip.MustParseAddr(tc.ip))
		if got != tc.blocked {
			t.Errorf("Blocked(%s) = %v (%s), want %v", tc.ip, got, why, tc.blocked)
		}
	}
}

func TestGuard(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if to := r.URL.Query().Get("to"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	res := fakeResolver{
		"internal.test":  {"10.1.2.3"},
		"metadata.test":  {"169.254.169.254"},
		"mixed.test":     {"10.0.0.7", "192.168.0.1"},
		"loopback.test":  {"127.0.0.1"},
		"mapped.test":    {"::ffff:127.0.0.1"},
		"allowed.test":   {"127.0.0.1"},
		"public.test":    {"93.184.216.34"},
		"rebinding.test": {"127.0.0.1"},
	}
	base := fmt.Sprintf("http://allowed.test:%d", port)
	// This client reaches the test server only by the allowed name: no
	// address prefix is allowed.
	c := New(Options{Allow: []string{"allowed.test"}, Resolver: res, Control: tripwire(t, nil), Rate: -1, BackoffBase: time.Millisecond})
	ctx := context.Background()

	t.Run("Allowed", func(t *testing.T) {
		r, err := c.Do(ctx, Request{URL: base})
		if err != nil || string(r.Body) != "ok" {
			t.Fatalf("err=%v", err)
		}
	})
	blocked := map[string]string{
		"RedirectTo127.0.0.2":      fmt.Sprintf("%s/?to=http://127.0.0.2:%d/", base, port),
		"RedirectToIPv6Loopback":   fmt.Sprintf("%s/?to=http://[::1]:%d/", base, port),
		"RedirectTo10.0.0.1":       base + "/?to=http://10.0.0.1/",
		"RedirectToMetadata":       base + "/?to=http://169.254.169.254/latest/meta-data/",
		"RedirectToPrivateName":    base + "/?to=http://internal.test/",
		"HostResolvesPrivate":      "http://internal.test/",
		"HostResolvesMetadata":     "http://metadata.test/",
		"HostResolvesMixedPrivate": "http://mixed.test/",
		"HostResolvesLoopback":     fmt.Sprintf("http://loopback.test:%d/", port),
		"HostResolvesMapped":       fmt.Sprintf("http://mapped.test:%d/", port),
		"DirectCGNAT":              "http://100.64.1.1/",
		"DirectIPv6ULA":            "http://[fd00::1]/",
		"DirectMapped":             "http://[::ffff:10.0.0.1]/",
		"DirectUnspecified":        "http://0.0.0.0/",
		"DirectLoopback":           srv.URL,
	}
	for name, u := range blocked {
		t.Run("Blocked/"+name, func(t *testing.T) {
			_, err := c.Do(ctx, Request{URL: u})
			if code(err) != retrieve.CodeBlockedAddress {
				t.Fatalf("%s: got %v, want BLOCKED_ADDRESS", u, err)
			}
		})
	}
	t.Run("AllowedName", func(t *testing.T) {
		r, err := c.Do(ctx, Request{URL: fmt.Sprintf("http://allowed.test:%d/", port)})
		if err != nil || string(r.Body) != "ok" {
			t.Fatalf("err=%v", err)
		}
	})
	t.Run("PerRequestAllow", func(t *testing.T) {
		u := fmt.Sprintf("http://rebinding.test:%d/", port)
		if _, err := c.Do(ctx, Request{URL: u}); code(err) != retrieve.CodeBlockedAddress {
			t.Fatalf("without allow: %v", err)
		}
		if _, err := c.Do(WithAllow(ctx, []string{"rebinding.test"}), Request{URL: u}); err != nil {
			t.Fatalf("with allow: %v", err)
		}
		// The connection dialled under the allow is not reused without it.
		if _, err := c.Do(ctx, Request{URL: u}); code(err) != retrieve.CodeBlockedAddress {
			t.Fatalf("after an allowed request, without allow: %v", err)
		}
	})
	t.Run("PublicPassesGuardStopsAtTripwire", func(t *testing.T) {
		var off atomic.Int32
		pc := New(Options{Resolver: res, Control: tripwire(t, &off), Rate: -1, Retries: -1})
		_, err := pc.Do(ctx, Request{URL: "http://public.test/"})
		if err == nil || code(err) == retrieve.CodeBlockedAddress || off.Load() != 1 {
			t.Fatalf("public address: err=%v tripwire hits=%d", err, off.Load())
		}
	})
	for _, u := range []string{"file:///etc/passwd", "gopher://127.0.0.1:70/", "ftp://example.com/", "javascript:alert(1)"} {
		t.Run("Scheme/"+strings.SplitN(u, ":", 2)[0], func(t *testing.T) {
			if _, err := c.Do(ctx, Request{URL: u}); code(err) != retrieve.CodeBlockedAddress {
				t.Fatalf("%s: %v", u, err)
			}
		})
	}
	t.Run("RedirectToFileScheme", func(t *testing.T) {
		if _, err := c.Do(ctx, Request{URL: base + "/?to=file:///etc/passwd"}); code(err) != retrieve.CodeBlockedAddress {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("DefaultRefusesLoopback", func(t *testing.T) {
		d := New(Options{Control: tripwire(t, nil), Rate: -1})
		if _, err := d.Do(ctx, Request{URL: srv.URL}); code(err) != retrieve.CodeBlockedAddress {
			t.Fatalf("got %v", err)
		}
	})
}

func TestRedirects(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Path, "/r/%d", &n)
		if n > 0 {
			http.Redirect(w, r, fmt.Sprintf("/r/%d", n-1), http.StatusMovedPermanently)
			return
		}
		fmt.Fprint(w, "end")
	}))
	defer srv.Close()
	c := newClient(t, nil)
	r, err := c.Do(context.Background(), Request{URL: srv.URL + "/r/5"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Redirects) != 5 || r.FinalURL != srv.URL+"/r/0" {
		t.Fatalf("redirects=%v final=%s", r.Redirects, r.FinalURL)
	}
	if _, err := c.Do(context.Background(), Request{URL: srv.URL + "/r/6"}); code(err) != retrieve.CodeUpstreamStatus {
		t.Fatalf("6 redirects: %v", err)
	}
}

func TestRetries(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		switch r.URL.Path {
		case "/503":
			if n == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
		case "/429":
			if n == 1 {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
		case "/429long":
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		fmt.Fprint(w, "fine")
	}))
	defer srv.Close()
	c := newClient(t, nil)
	for _, p := range []string{"/503", "/429"} {
		hits.Store(0)
		r, err := c.Do(context.Background(), Request{URL: srv.URL + p})
		if err != nil || r.Status != 200 || r.Attempts != 2 {
			t.Fatalf("%s: err=%v resp=%+v", p, err, r)
		}
	}
	hits.Store(0)
	start := time.Now()
	r, err := c.Do(context.Background(), Request{URL: srv.URL + "/429long"})
	if err != nil || r.Status != 429 || hits.Load() != 1 || time.Since(start) > 3*time.Second {
		t.Fatalf("429 with a long Retry-After must not be waited for: err=%v hits=%d", err, hits.Load())
	}
	se := StatusError(r, srv.URL)
	if code(se) != retrieve.CodeRateLimited || !strings.Contains(se.Error(), "Retry-After: 3600") {
		t.Fatalf("got %v", se)
	}
}

func TestTimeoutStalledBody(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := New(Options{Allow: []string{"127.0.0.1"}, Control: tripwire(t, nil), Timeout: 300 * time.Millisecond, Rate: -1})
	_, err := c.Do(context.Background(), Request{URL: srv.URL})
	if code(err) != retrieve.CodeTimeout {
		t.Fatalf("got %v", err)
	}
}

func TestBodyCap(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 64 MiB gzip bomb and the 1 GiB body are slow under -race; the plain run covers them")
	}
	bomb := func() []byte {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zero := make([]byte, 1<<20)
		for range 64 { // 64 MiB of zeros, ~64 KiB compressed
			zw.Write(zero)
		}
		zw.Close()
		return b.Bytes()
	}()
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/gzip":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb)
		case "/huge":
			// 1 GiB announced and streamed until the client hangs up.
			w.Header().Set("Content-Length", fmt.Sprint(1<<30))
			chunk := make([]byte, 64<<10)
			for sent.Load() < 1<<30 {
				n, err := w.Write(chunk)
				sent.Add(int64(n))
				if err != nil {
					return
				}
			}
		}
	}))
	defer srv.Close()
	c := newClient(t, nil)
	const capBytes = 1 << 20
	for _, p := range []string{"/gzip", "/huge"} {
		r, err := c.Do(context.Background(), Request{URL: srv.URL + p, TransferCap: capBytes})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !r.Truncated || len(r.Body) != capBytes {
			t.Fatalf("%s: truncated=%v len=%d", p, r.Truncated, len(r.Body))
		}
	}
	if s := sent.Load(); s > 256<<20 {
		t.Fatalf("the server sent %d bytes: the client kept reading past the cap", s)
	}
}

func TestRobots(t *testing.T) {
	status := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if r.URL.Path != "/robots.txt" {
			fmt.Fprint(w, "page")
			return
		}
		switch status[host] {
		case 200:
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n\nUser-agent: retrieve\nDisallow: /no-retrieve\n")
		default:
			w.WriteHeader(status[host])
		}
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	res := fakeResolver{"ok.test": {"127.0.0.1"}, "e500.test": {"127.0.0.1"}, "e404.test": {"127.0.0.1"}}
	status[fmt.Sprintf("ok.test:%d", port)] = 200
	status[fmt.Sprintf("e500.test:%d", port)] = 500
	status[fmt.Sprintf("e404.test:%d", port)] = 404
	c := newClient(t, res, "ok.test", "e500.test", "e404.test")
	rb := NewRobots(c, "retrieve")
	check := func(host, path string) error {
		u := mustURL(t, fmt.Sprintf("http://%s:%d%s", host, port, path))
		return rb.Check(context.Background(), u)
	}
	for _, tc := range []struct {
		host, path string
		want       retrieve.Code
	}{
		{"ok.test", "/public", ""},
		{"ok.test", "/no-retrieve/x", retrieve.CodeRobotsDisallowed},
		{"ok.test", "/private", ""}, // the retrieve group replaces the * group
		{"e500.test", "/anything", retrieve.CodeRobotsDisallowed},
		{"e404.test", "/anything", ""},
	} {
		if got := code(check(tc.host, tc.path)); got != tc.want {
			t.Errorf("%s%s: got %q, want %q", tc.host, tc.path, got, tc.want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:pw@example.com/a?x=1":              "https://example.com/a?x=1",
		"https://example.com/a?access_token=abc&page=2":  "https://example.com/a?access_token=REDACTED&page=2",
		"https://example.com/a?X-Amz-Signature=abc&q=ok": "https://example.com/a?X-Amz-Signature=REDACTED&q=ok",
		"https://example.com/a?api_key=s3cr3t":           "https://example.com/a?api_key=REDACTED",
		"https://example.com/plain?q=token":              "https://example.com/plain?q=token",
		"https://example.com/a?github_token=zzz#frag":    "https://example.com/a?github_token=REDACTED#frag",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNextLink(t *testing.T) {
	for in, want := range map[string]string{
		`<https://api.test/items?page=2>; rel="next", <https://api.test/items?page=5>; rel="last"`: "https://api.test/items?page=2",
		`<https://a/1>; rel="prev", <https://a/3>; rel=next`:                                       "https://a/3",
		`<https://a/1>; rel="last"`:                  "",
		`<https://a/x>; title="a, b; c"; rel="next"`: "https://a/x",
		`garbage, <https://a/y>; rel="prev next"`:    "https://a/y",
		``: "",
	} {
		if got := NextLink(in); got != want {
			t.Errorf("NextLink(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if d, ok := RetryAfter("120", now); !ok || d != 2*time.Minute {
		t.Errorf("seconds: %v %v", d, ok)
	}
	if d, ok := RetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now); !ok || d != 30*time.Second {
		t.Errorf("date: %v %v", d, ok)
	}
	if _, ok := RetryAfter("soon", now); ok {
		t.Error("garbage accepted")
	}
}

func FuzzNextLink(f *testing.F) {
	for _, s := range []string{`<https://a/2>; rel="next"`, `<a>;rel=next,<b>;rel=prev`, `<`, `<x>; rel="`, `,,,;;;"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := NextLink(s)
		if got != "" && !strings.Contains(s, got) {
			t.Fatalf("NextLink(%q) = %q, not part of the input", s, got)
		}
	})
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "120", "-1", "Wed, 21 Oct 2015 07:28:00 GMT", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, ok := RetryAfter(s, time.Now()); ok && d < 0 {
			t.Fatalf("negative delay %v for %q", d, s)
		}
	})
}

func FuzzRedactURL(f *testing.F) {
	for _, s := range []string{"https://u:p@h/?token=a", "http://h/?a=1&&b", "%zz", "https://h/?key"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := RedactURL(s)
		if strings.Contains(s, "token=SECRETVALUE") && strings.Contains(out, "SECRETVALUE") && !strings.Contains(s, "%zz") {
			t.Fatalf("secret kept: %q → %q", s, out)
		}
		_ = io.Discard
	})
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
