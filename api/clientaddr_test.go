package api_test

import (
	"fmt"
	"net/http"
	"testing"
)

// codeRequestsPerAddress is the ratelimit policy's default CodeRequestsPerIP limit.
const codeRequestsPerAddress = 20

// askForCodes sends login-code requests (each for another address, so only the per-client limit
// can refuse them) as one client, and reports the status of the last.
func askForCodes(t *testing.T, c *client, n int, tag string) int {
	t.Helper()
	var last response
	for i := range n {
		last = c.do(http.MethodPost, fmt.Sprintf("/api/users/sendLoginCode/%s-%d@example.com", tag, i), nil)
		if last.status == http.StatusTooManyRequests && i < n-1 {
			t.Fatalf("request %d of %s refused already: %s", i+1, tag, last.body)
		}
	}
	return last.status
}

// TestClientsBehindATrustedProxyHaveTheirOwnLimits: behind a reverse proxy every request comes
// from the proxy's address, so the limits must count the client the proxy names, and only a
// trusted proxy may name it.
func TestClientsBehindATrustedProxyHaveTheirOwnLimits(t *testing.T) {
	t.Parallel()
	// The test server's clients connect from 127.0.0.1: here that is the trusted proxy.
	a := newAppBehind(t, newApp(t), "127.0.0.0/8")
	alice, bob := a.browser(t), a.browser(t)
	alice.header.Set("X-Forwarded-For", "198.51.100.10")
	bob.header.Set("X-Forwarded-For", "198.51.100.20")

	if got := askForCodes(t, alice, codeRequestsPerAddress+1, "alice"); got != http.StatusTooManyRequests {
		t.Fatalf("request %d from one client: status %d, want 429", codeRequestsPerAddress+1, got)
	}
	if got := askForCodes(t, bob, 1, "bob"); got == http.StatusTooManyRequests {
		t.Fatal("another client behind the same proxy shares the first one's limit")
	}
	// IPv6 clients are counted by /64: two addresses in one /64 are one client.
	v6a, v6b := a.browser(t), a.browser(t)
	v6a.header.Set("X-Forwarded-For", "2001:db8:1:2::1")
	v6b.header.Set("X-Forwarded-For", "2001:db8:1:2::ffff")
	askForCodes(t, v6a, codeRequestsPerAddress, "v6a")
	if got := askForCodes(t, v6b, 1, "v6b"); got != http.StatusTooManyRequests {
		t.Fatalf("another address in the same /64: status %d, want 429", got)
	}
}

func TestAnUntrustedPeerCannotChooseItsAddress(t *testing.T) {
	t.Parallel()
	a := newAppBehind(t, newApp(t), "192.0.2.0/24") // a proxy, but not the test client
	c := a.browser(t)
	for i := range codeRequestsPerAddress {
		c.header.Set("X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i+1))
		c.header.Set("Forwarded", fmt.Sprintf("for=203.0.113.%d", i+1))
		if res := c.do(http.MethodPost, fmt.Sprintf("/api/users/sendLoginCode/spoof-%d@example.com", i), nil); res.status == http.StatusTooManyRequests {
			t.Fatalf("request %d refused already", i+1)
		}
	}
	c.header.Set("X-Forwarded-For", "198.51.100.250")
	res := c.do(http.MethodPost, "/api/users/sendLoginCode/spoof-last@example.com", nil)
	if res.status != http.StatusTooManyRequests {
		t.Fatalf("a forged X-Forwarded-For escaped the limit: status %d", res.status)
	}
}
