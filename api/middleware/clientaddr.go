package middleware

import (
	"context"
	"net"
	"net/http"
	"net/netip"

	"github.com/realclientip/realclientip-go"
)

// Proxies are the reverse proxies trusted to say, in X-Forwarded-For or Forwarded (RFC 7239),
// whom they forwarded a request for (CLEARVEST_TRUSTED_PROXIES). The zero value trusts nobody.
type Proxies struct {
	trusted   []netip.Prefix
	xff       realclientip.Strategy
	forwarded realclientip.Strategy
}

// NewProxies trusts the proxies inside the given prefixes.
func NewProxies(trusted []netip.Prefix) Proxies {
	if len(trusted) == 0 {
		return Proxies{}
	}
	nets := make([]net.IPNet, len(trusted))
	for i, p := range trusted {
		nets[i] = net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
	}
	return Proxies{
		trusted:   trusted,
		xff:       realclientip.Must(realclientip.NewRightmostTrustedRangeStrategy("X-Forwarded-For", nets)),
		forwarded: realclientip.Must(realclientip.NewRightmostTrustedRangeStrategy("Forwarded", nets)),
	}
}

// ClientIP returns the address of the client behind a request whose TCP peer is peer (an
// http.Request's RemoteAddr).
//
// Forwarding headers are anyone's to write, so they count only when the peer itself is a trusted
// proxy; then they are read right to left, skipping trusted proxies, and the first address that
// is not one is the client. Anything the client wrote further left is never reached. When the
// headers cannot be read that way (a malformed entry where the client should be, or nothing but
// trusted proxies), the answer is the peer: junk is never believed, and a client who sends junk
// only shares the proxy's rate limits with others who do.
//
// When both headers are present their answers must agree. A proxy writes one of them; if it
// passes the other through as the client sent it, the two differ, and there is no telling which
// one the proxy wrote, so neither is believed.
//
// The result is invalid only when peer is not an address at all.
func (p Proxies) ClientIP(peer string, h http.Header) netip.Addr {
	addr := parseAddr(peer)
	if !addr.IsValid() || !p.trusts(addr) {
		return addr
	}
	_, hasXFF := h["X-Forwarded-For"]
	_, hasForwarded := h["Forwarded"]
	var client netip.Addr
	switch {
	case hasXFF && hasForwarded:
		viaXFF, viaForwarded := parseAddr(p.xff.ClientIP(h, peer)), parseAddr(p.forwarded.ClientIP(h, peer))
		if viaXFF == viaForwarded {
			client = viaXFF
		}
	case hasXFF:
		client = parseAddr(p.xff.ClientIP(h, peer))
	case hasForwarded:
		client = parseAddr(p.forwarded.ClientIP(h, peer))
	}
	if !client.IsValid() {
		return addr
	}
	return client
}

func (p Proxies) trusts(addr netip.Addr) bool {
	for _, prefix := range p.trusted {
		if prefix.Contains(addr) {
			return true
		}
	}
	return false
}

// parseAddr reads "ip", "ip:port", "[ipv6]:port" or "ipv6%zone", dropping the port and the
// zone; IPv4-mapped IPv6 addresses become IPv4, so one client has one spelling.
func parseAddr(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().WithZone("").Unmap()
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return a.WithZone("").Unmap()
	}
	return netip.Addr{}
}

type clientAddrKey struct{}

// ClientAddress resolves each request's client address once (Proxies.ClientIP), for the rate
// limits, the security log and the audit trail to agree on it; ClientAddr reads it.
func ClientAddress(p Proxies) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := context.WithValue(r.Context(), clientAddrKey{}, p.ClientIP(r.RemoteAddr, r.Header))
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// ClientAddr is the client address ClientAddress resolved for r, or r's peer address when it
// did not run. It is invalid only for a request without a peer address.
func ClientAddr(r *http.Request) netip.Addr {
	if a, ok := r.Context().Value(clientAddrKey{}).(netip.Addr); ok {
		return a
	}
	return parseAddr(r.RemoteAddr)
}
