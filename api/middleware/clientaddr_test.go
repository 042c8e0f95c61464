package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"clearvest/api/middleware"
)

func proxies(t testing.TB, prefixes ...string) middleware.Proxies {
	t.Helper()
	var out []netip.Prefix
	for _, s := range prefixes {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return middleware.NewProxies(out)
}

func TestClientIP(t *testing.T) {
	t.Parallel()
	// The load balancer (10.0.0.5) and an inner proxy (10.0.1.9) are trusted; so is an IPv6
	// front end.
	p := proxies(t, "10.0.0.0/16", "2001:db8:ffff::/48")
	tests := []struct {
		name   string
		peer   string
		header http.Header
		want   string
	}{
		{"no proxy: the peer", "203.0.113.7:5123", nil, "203.0.113.7"},
		{"an untrusted peer cannot name someone else", "203.0.113.7:5123",
			http.Header{"X-Forwarded-For": {"198.51.100.1"}, "Forwarded": {"for=198.51.100.1"}}, "203.0.113.7"},
		{"trusted peer without headers: the peer", "10.0.0.5:80", nil, "10.0.0.5"},
		{"one proxy", "10.0.0.5:80", http.Header{"X-Forwarded-For": {"198.51.100.1"}}, "198.51.100.1"},
		{"two proxies, right to left", "10.0.0.5:80", http.Header{"X-Forwarded-For": {"198.51.100.1, 10.0.1.9"}}, "198.51.100.1"},
		{"what the client wrote on the left is never reached", "10.0.0.5:80",
			http.Header{"X-Forwarded-For": {"1.2.3.4, 198.51.100.1"}}, "198.51.100.1"},
		{"several header lines are one list", "10.0.0.5:80",
			http.Header{"X-Forwarded-For": {"1.2.3.4", "198.51.100.1, 10.0.1.9"}}, "198.51.100.1"},
		{"a client inside a trusted range is skipped like a proxy", "10.0.0.5:80",
			http.Header{"X-Forwarded-For": {"1.2.3.4, 10.0.9.9"}}, "1.2.3.4"},
		{"junk where the client should be: the peer", "10.0.0.5:80",
			http.Header{"X-Forwarded-For": {"198.51.100.1, not-an-ip"}}, "10.0.0.5"},
		{"junk further left is never read", "10.0.0.5:80",
			http.Header{"X-Forwarded-For": {"not-an-ip, 198.51.100.1"}}, "198.51.100.1"},
		{"only trusted proxies: the peer", "10.0.0.5:80", http.Header{"X-Forwarded-For": {"10.0.1.9"}}, "10.0.0.5"},
		{"empty header: the peer", "10.0.0.5:80", http.Header{"X-Forwarded-For": {""}}, "10.0.0.5"},
		{"an address with a port", "10.0.0.5:80", http.Header{"X-Forwarded-For": {"198.51.100.1:4711"}}, "198.51.100.1"},
		{"IPv4-mapped IPv6 is IPv4", "10.0.0.5:80", http.Header{"X-Forwarded-For": {"::ffff:198.51.100.1"}}, "198.51.100.1"},
		{"RFC 7239 Forwarded", "10.0.0.5:80",
			http.Header{"Forwarded": {`for=198.51.100.1;proto=https, for="10.0.1.9"`}}, "198.51.100.1"},
		{"Forwarded with a bracketed IPv6 and port", "10.0.0.5:80",
			http.Header{"Forwarded": {`For="[2001:db8:cafe::17]:4711"`}}, "2001:db8:cafe::17"},
		{"Forwarded without for=: the peer", "10.0.0.5:80", http.Header{"Forwarded": {"proto=https"}}, "10.0.0.5"},
		{"Forwarded with an obfuscated identifier: the peer", "10.0.0.5:80", http.Header{"Forwarded": {"for=_hidden"}}, "10.0.0.5"},
		{"both headers agreeing", "10.0.0.5:80",
			http.Header{"X-Forwarded-For": {"198.51.100.1"}, "Forwarded": {"for=198.51.100.1"}}, "198.51.100.1"},
		{"both headers disagreeing: neither is believed", "10.0.0.5:80",
			http.Header{"X-Forwarded-For": {"198.51.100.1"}, "Forwarded": {"for=192.0.2.66"}}, "10.0.0.5"},
		{"an IPv6 proxy", "[2001:db8:ffff::2]:443", http.Header{"X-Forwarded-For": {"2001:db8:1:2::99"}}, "2001:db8:1:2::99"},
		{"an IPv6 peer with a zone", "[fe80::1%eth0]:443", nil, "fe80::1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := p.ClientIP(tt.peer, tt.header)
			if got.String() != tt.want {
				t.Errorf("ClientIP(%q, %v) = %v, want %s", tt.peer, tt.header, got, tt.want)
			}
		})
	}
	if got := middleware.NewProxies(nil).ClientIP("10.0.0.5:80", http.Header{"X-Forwarded-For": {"198.51.100.1"}}); got.String() != "10.0.0.5" {
		t.Errorf("with no trusted proxies, the header was believed: %v", got)
	}
	if got := p.ClientIP("not an address", nil); got.IsValid() {
		t.Errorf("ClientIP of a peer that is not an address = %v, want invalid", got)
	}
}

func TestClientAddressMiddleware(t *testing.T) {
	t.Parallel()
	var seen netip.Addr
	h := middleware.ClientAddress(proxies(t, "10.0.0.0/8"))(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		seen = middleware.ClientAddr(r)
	}))
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.RemoteAddr = "10.1.2.3:999"
	req.Header.Set("X-Forwarded-For", "198.51.100.1")
	h.ServeHTTP(httptest.NewRecorder(), req)
	if seen.String() != "198.51.100.1" {
		t.Errorf("ClientAddr = %v, want 198.51.100.1", seen)
	}
	// Without the middleware, the peer.
	if got := middleware.ClientAddr(req); got.String() != "10.1.2.3" {
		t.Errorf("ClientAddr without the middleware = %v, want the peer", got)
	}
}

// FuzzClientIP sends arbitrary forwarding headers from a trusted and an untrusted peer: the
// answer is always a valid address, an untrusted peer is always its own client, and a trusted
// peer's answer is either the peer or an address that appears in a header.
func FuzzClientIP(f *testing.F) {
	for _, s := range []string{"198.51.100.1", "1.2.3.4, 198.51.100.1, 10.0.0.9", "junk", "", ",,,", "[::1]:80",
		"2001:db8::1%eth0", "::ffff:1.2.3.4", "for=1.2.3.4", `for="[2001:db8::1]:80";proto=https`, "for=_x, for=unknown"} {
		f.Add(s, s)
	}
	p := proxies(f, "10.0.0.0/8", "2001:db8:ffff::/48")
	f.Fuzz(func(t *testing.T, xff, forwarded string) {
		h := http.Header{}
		if xff != "" {
			h.Set("X-Forwarded-For", xff)
		}
		if forwarded != "" {
			h.Set("Forwarded", forwarded)
		}
		if got := p.ClientIP("203.0.113.7:5000", h); got.String() != "203.0.113.7" {
			t.Fatalf("untrusted peer, headers %v: %v", h, got)
		}
		got := p.ClientIP("10.9.9.9:5000", h)
		if !got.IsValid() || got.Zone() != "" || got.Is4In6() {
			t.Fatalf("headers %v: invalid or unnormalised answer %v", h, got)
		}
		if got.String() != "10.9.9.9" && !mentions(xff+","+forwarded, got) {
			t.Fatalf("headers %v: answer %v appears in none of them", h, got)
		}
	})
}

// mentions reports whether s spells addr in some form the parser accepts (IPv6 has many).
func mentions(s string, addr netip.Addr) bool {
	for _, field := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(",; =\"[]", r) }) {
		if host, zone, ok := strings.Cut(field, "%"); ok && !strings.Contains(zone, ":") {
			field = host // the parser takes any zone, even an empty one, and drops it
		}
		if a, err := netip.ParseAddr(field); err == nil && a.WithZone("").Unmap() == addr {
			return true
		}
		if ap, err := netip.ParseAddrPort(field); err == nil && ap.Addr().WithZone("").Unmap() == addr {
			return true
		}
	}
	return false
}
