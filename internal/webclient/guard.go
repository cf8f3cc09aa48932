package webclient

import (
	"context"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// blockedPrefixes are the special-purpose ranges the guard refuses beyond
// what netip's predicates cover.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64: can reach private IPv4
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local NAT64
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4: embeds any IPv4
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
}

// Blocked reports whether ip is an address the guard refuses by default:
// loopback, private (RFC 1918, ULA), link-local (cloud metadata), CGNAT,
// multicast, unspecified, IPv4-mapped IPv6 and other special ranges. The
// reason names the class for the error message.
func Blocked(ip netip.Addr) (bool, string) {
	if !ip.IsValid() {
		return true, "invalid"
	}
	if ip.Is4In6() {
		return true, "IPv4-mapped IPv6"
	}
	ip = ip.WithZone("")
	switch {
	case ip.IsLoopback():
		return true, "loopback"
	case ip.IsPrivate():
		return true, "private"
	case ip.IsLinkLocalUnicast():
		return true, "link-local"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return true, "multicast"
	case ip.IsUnspecified():
		return true, "unspecified"
	}
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return true, "special-purpose"
		}
	}
	return false, ""
}

// Allow is the allow-list of the guard: host names (exact, case-insensitive,
// "localhost" included) and address prefixes ("127.0.0.0/8", "::1/128",
// or a single address).
type Allow struct {
	hosts    map[string]bool
	prefixes []netip.Prefix
}

// ParseAllow builds an allow-list from entries; an entry that parses as an
// address or prefix is a prefix, anything else a host name.
func ParseAllow(entries []string) *Allow {
	a := &Allow{hosts: map[string]bool{}}
	a.add(entries)
	return a
}

func (a *Allow) add(entries []string) {
	for _, e := range entries {
		e = strings.TrimSpace(strings.ToLower(e))
		if e == "" {
			continue
		}
		if p, err := netip.ParsePrefix(e); err == nil {
			a.prefixes = append(a.prefixes, p.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(strings.Trim(e, "[]")); err == nil {
			a.prefixes = append(a.prefixes, netip.PrefixFrom(ip, ip.BitLen()))
			continue
		}
		a.hosts[strings.TrimSuffix(e, ".")] = true
	}
}

// merge returns a new list with a's entries and extra.
func (a *Allow) merge(extra []string) *Allow {
	out := &Allow{hosts: map[string]bool{}}
	if a != nil {
		for h := range a.hosts {
			out.hosts[h] = true
		}
		out.prefixes = append(out.prefixes, a.prefixes...)
	}
	out.add(extra)
	return out
}

// Host reports whether host is allowed by name.
func (a *Allow) Host(host string) bool {
	if a == nil {
		return false
	}
	return a.hosts[strings.TrimSuffix(strings.ToLower(host), ".")]
}

// Addr reports whether ip is in an allowed prefix.
func (a *Allow) Addr(ip netip.Addr) bool {
	if a == nil {
		return false
	}
	ip = ip.WithZone("")
	for _, p := range a.prefixes {
		if p.Contains(ip) || (ip.Is4In6() && p.Contains(ip.Unmap())) {
			return true
		}
	}
	return false
}

type allowKey struct{}

// WithAllow returns a context whose requests may also reach the given hosts
// or prefixes (a per-request --allow-host).
func WithAllow(ctx context.Context, entries []string) context.Context {
	if len(entries) == 0 {
		return ctx
	}
	prev, _ := ctx.Value(allowKey{}).(*Allow)
	return context.WithValue(ctx, allowKey{}, prev.merge(entries))
}

func allowFrom(ctx context.Context) *Allow {
	a, _ := ctx.Value(allowKey{}).(*Allow)
	return a
}

// Resolver looks up the addresses of a host; *net.Resolver implements it,
// and tests pass a fake one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

var _ Resolver = (*net.Resolver)(nil)

// LegacyIPv4 parses the numeric IPv4 forms that inet_aton(3) and URL
// parsers of browsers accept besides dotted decimal: one to four parts,
// each decimal, octal (a leading 0) or hexadecimal (0x), the last filling
// the remaining bytes (2130706433, 0x7f000001, 127.1, 0177.0.0.01). Such a
// host is an address, checked as one, and never looked up in DNS.
func LegacyIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 || host == "" {
		return netip.Addr{}, false
	}
	var vals []uint64
	for _, p := range parts {
		base := 10
		switch {
		case len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X"):
			base, p = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals = append(vals, v)
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*i)
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}
