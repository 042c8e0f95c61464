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
	// working one account from many addresses.
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
	acct := accountKey(account)
	wait, err := p.limiter.Blocked(ctx, "login-backoff:"+acct)
	if err != nil {
		return err
	}
	if wait > 0 {
		return &LimitError{Wait: wait}
	}
	if err := p.check(ctx, "login-ip:"+ipKey(ip), p.LoginPerIP); err != nil {
		return err
	}
	return p.check(ctx, "login-account:"+acct, p.LoginPerAccount)
}

// LoginFailed records a failed attempt; past FreeFailures in FailureWindow the account backs
// off for FirstBackoff, doubling with each further failure.
func (p *Policy) LoginFailed(ctx context.Context, account string) error {
	acct := accountKey(account)
	n, _, err := p.limiter.hit(ctx, "login-failures:"+acct, p.FailureWindow)
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
	return p.limiter.Block(ctx, "login-backoff:"+acct, backoff)
}

// LoginSucceeded clears an account's failures and back-off. The hourly cap stays: it limits
// attempts, not failures.
func (p *Policy) LoginSucceeded(ctx context.Context, account string) error {
	acct := accountKey(account)
	return p.limiter.Reset(ctx, "login-failures:"+acct, "login-backoff:"+acct)
}

// CodeRequest counts a request for an e-mailed code or link for account from ip, refusing it
// with a *LimitError over either limit.
func (p *Policy) CodeRequest(ctx context.Context, account, ip string) error {
	if err := p.check(ctx, "code-ip:"+ipKey(ip), p.CodeRequestsPerIP); err != nil {
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

// AccountKey and IPKey are how an account (an e-mail address or a user id) and a client address
// appear in keys, for limits kept outside this policy: hashed, so the table holds neither.
func AccountKey(account string) string { return accountKey(account) }

// IPKey: see AccountKey.
func IPKey(ip string) string { return ipKey(ip) }

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

// ipKey groups IPv6 addresses by /64, the block one subscriber (or attacker) normally gets;
// limiting single IPv6 addresses would limit nothing.
func ipKey(ip string) string {
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

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}
