package webclient

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
)

// noDNS fails the test on any DNS look-up.
type noDNS struct{ t *testing.T }

func (n noDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	n.t.Errorf("%s was looked up in DNS", host)
	return nil, context.Canceled
}

// TestSecurityNumericHosts: the numeric forms of a loopback or private
// address that inet_aton and browsers accept are BLOCKED_ADDRESS, without
// a DNS look-up. Before, 0x7f000001 and 2130706433 were looked up and
// reported ROBOTS_DISALLOWED.
func TestSecurityNumericHosts(t *testing.T) {
	c := New(Options{Resolver: noDNS{t}, Control: tripwire(t, nil), Rate: -1, BackoffBase: time.Millisecond})
	for _, host := range []string{"0x7f000001", "2130706433", "127.1", "0177.0.0.1", "0x7f.0.0.1", "017700000001", "0xA9FEA9FE", "10.1"} {
		t.Run(host, func(t *testing.T) {
			r := NewRobots(c, "retrieve-test")
			u := "http://" + host + ":9/page"
			_, err := c.Do(context.Background(), Request{URL: u})
			if got := retrieve.ErrorCode(err); got != retrieve.CodeBlockedAddress {
				t.Errorf("Do(%s) = %v, want BLOCKED_ADDRESS", u, err)
			}
			pu := mustURL(t, u)
			if err := r.Check(context.Background(), pu); err != nil {
				t.Errorf("robots.txt of %s: %v, want no verdict (the page itself is refused)", host, err)
			}
		})
	}
	for host, want := range map[string]string{"0x7f000001": "127.0.0.1", "2130706433": "127.0.0.1", "127.1": "127.0.0.1", "10.1": "10.0.0.1", "0xA9FEA9FE": "169.254.169.254"} {
		if got, ok := LegacyIPv4(host); !ok || got.String() != want {
			t.Errorf("LegacyIPv4(%q) = %v %v, want %s", host, got, ok, want)
		}
	}
	for _, name := range []string{"example.com", "0x", "1.2.3.4.5", "256.1.1.1", "08.1.1.1", "1.2.65536", ""} {
		if got, ok := LegacyIPv4(name); ok {
			t.Errorf("LegacyIPv4(%q) = %v, want not an address", name, got)
		}
	}
}
