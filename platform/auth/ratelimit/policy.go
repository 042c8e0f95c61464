package ratelimit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/netip"
	"strings"
	"time"
)

// Rule is a limit of attempts per window.
type Rule struct {
	Limit  int
	Window time.Duration
}

// Policy holds the limits on signing in and on requesting e-mailed codes and links. The fields
// are the defaults of NewPolicy; change them only before first use.
type Policy struct {
	limiter *Limiter

	// LoginPerIP limits attempts from one address (or IPv6 /64): stops a single machine
	// spraying passwords across many accounts.
	LoginPerIP Rule
	// LoginPerAccount is the hard cap per account whatever the source: stops a botnet
	// working one account from many addresses. A browser the account trusts has a cap (and a
	// back-off) of its own instead (LoginFromTrustedDevice).
	LoginPerAccount Rule
	// FreeFailures is how many failures in FailureWindow an account gets before back-off:
	// enough for a person fumbling a password, far too few for guessing.
	FreeFailures  int
	FailureWindow time.Duration
	// FirstBackoff doubles with each further failure, up to MaxBackoff.
	FirstBackoff time.Duration
	MaxBackoff   time.Duration

	// CodeRequestsPerAccount and CodeRequestsPerIP limit e-mailed codes and links (login
	// codes, verification and reset e-mails): each costs a mail and opens a guessing window.
	CodeRequestsPerAccount Rule
	CodeRequestsPerIP      Rule
}

// NewPolicy returns the default policy on limiter.
func NewPolicy(limiter *Limiter) *Policy {
	return &Policy{
		limiter:                limiter,
		LoginPerIP:             Rule{Limit: 30, Window: time.Minute},
		LoginPerAccount:        Rule{Limit: 100, Window: time.Hour},
		FreeFailures:           10,
		FailureWindow:          15 * time.Minute,
		FirstBackoff:           time.Minute,
		MaxBackoff:             time.Hour,
		CodeRequestsPerAccount: Rule{Limit: 5, Window: time.Hour},
		CodeRequestsPerIP:      Rule{Limit: 20, Window: time.Hour},
	}
}

// Login counts a sign-in attempt (password, login code or TOTP) for account (the e-mail as
// typed, whether or not it exists, so the answer never reveals which accounts do) from ip, and
// refuses it with a *LimitError when the account is backing off or a limit is reached. Call it
// before checking the credential.
func (p *Policy) Login(ctx context.Context, account, ip string) error {
	return p.login(ctx, accountKey(account), ip)
}

// LoginFailed records a failed attempt; past FreeFailures in FailureWindow the account backs
// off for FirstBackoff, doubling with each further failure.
func (p *Policy) LoginFailed(ctx context.Context, account string) error {
	return p.failed(ctx, accountKey(account))
}

// LoginSucceeded clears an account's failures and back-off. The hourly cap stays: it limits
// attempts, not failures.
func (p *Policy) LoginSucceeded(ctx context.Context, account string) error {
	return p.succeeded(ctx, accountKey(account))
}

// The same three for a sign-in from a browser that presented a valid trusted-device cookie of
// the account it signs in to. Such a browser has its own failure count, back-off and hourly
// cap in place of the account's: anyone can fail against an account from elsewhere, so if
// those failures blocked the owner's own browser, anyone could lock the owner (an admin) out.
// The per-address limit still applies. A stolen device cookie gains nothing but a back-off of
// its own.

// LoginFromTrustedDevice is Login for a trusted browser; device is its cookie's value.
func (p *Policy) LoginFromTrustedDevice(ctx context.Context, device, ip string) error {
	return p.login(ctx, deviceKey(device), ip)
}

// TrustedDeviceFailed is LoginFailed for a trusted browser.
func (p *Policy) TrustedDeviceFailed(ctx context.Context, device string) error {
	return p.failed(ctx, deviceKey(device))
}

// TrustedDeviceSucceeded is LoginSucceeded for a trusted browser. The account's own failures
// stay: they may be someone else's.
func (p *Policy) TrustedDeviceSucceeded(ctx context.Context, device string) error {
	return p.succeeded(ctx, deviceKey(device))
}

// login, failed and succeeded work on a subject: an account, or a trusted browser.
func (p *Policy) login(ctx context.Context, subject, ip string) error {
	wait, err := p.limiter.Blocked(ctx, "login-backoff:"+subject)
	if err != nil {
		return err
	}
	if wait > 0 {
		return &LimitError{Wait: wait}
	}
	if err := p.check(ctx, "login-ip:"+ClientKey(ip), p.LoginPerIP); err != nil {
		return err
	}
	return p.check(ctx, "login-account:"+subject, p.LoginPerAccount)
}

func (p *Policy) failed(ctx context.Context, subject string) error {
	n, _, err := p.limiter.hit(ctx, "login-failures:"+subject, p.FailureWindow)
	if err != nil {
		return err
	}
	if n < p.FreeFailures {
		return nil
	}
	backoff := p.MaxBackoff
	if shift := n - p.FreeFailures; shift < 32 {
		backoff = min(p.FirstBackoff<<shift, p.MaxBackoff)
	}
	return p.limiter.Block(ctx, "login-backoff:"+subject, backoff)
}

func (p *Policy) succeeded(ctx context.Context, subject string) error {
	return p.limiter.Reset(ctx, "login-failures:"+subject, "login-backoff:"+subject)
}

// CodeRequest counts a request for an e-mailed code or link for account from ip, refusing it
// with a *LimitError over either limit.
func (p *Policy) CodeRequest(ctx context.Context, account, ip string) error {
	if err := p.check(ctx, "code-ip:"+ClientKey(ip), p.CodeRequestsPerIP); err != nil {
		return err
	}
	return p.check(ctx, "code-account:"+accountKey(account), p.CodeRequestsPerAccount)
}

// AccountKeys lists the keys under which the policy counts and blocks an account, for erasing
// them with the account (Forget).
func AccountKeys(account string) []string {
	acct := accountKey(account)
	return []string{"login-backoff:" + acct, "login-failures:" + acct, "login-account:" + acct, "code-account:" + acct}
}

// AccountKey is how an account (an e-mail address or a user id) appears in keys of limits kept
// outside this policy: hashed, as ClientKey hashes addresses, so the table holds neither.
func AccountKey(account string) string { return accountKey(account) }

func (p *Policy) check(ctx context.Context, key string, r Rule) error {
	ok, wait, err := p.limiter.Hit(ctx, key, r.Limit, r.Window)
	if err != nil {
		return err
	}
	if !ok {
		return &LimitError{Wait: wait}
	}
	return nil
}

// accountKey hashes the normalised account so the table holds no e-mail addresses: its rows
// outlive nothing, but a database copy should not list who tried to sign in.
func accountKey(account string) string {
	return digest(strings.ToLower(strings.TrimSpace(account)))
}

// ClientKey is the one way a client address becomes part of a rate-limit key, so that every
// limit counts one client alike: an IPv4 address as it is, an IPv6 address by its /64, the block
// one subscriber (or attacker) normally gets (limiting single IPv6 addresses would limit
// nothing). The address is the client's as the API resolved it behind trusted proxies.
func ClientKey(ip string) string {
	addr, err := netip.ParseAddr(strings.TrimSpace(ip))
	if err != nil {
		return digest("unparsed:" + ip)
	}
	addr = addr.Unmap()
	if addr.Is6() {
		prefix, _ := addr.Prefix(64)
		return digest(prefix.String())
	}
	return digest(addr.String())
}

// deviceKey hashes a trusted-device cookie into a key no account key can equal.
func deviceKey(token string) string {
	return digest("trusted-device\x00" + token)
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}
