package accounts

import (
	"context"
	"time"

	"clearvest/platform/auth/ratelimit"
)

// rule is a limit of the flows that auth's ratelimit.Policy does not cover (sign-in attempts and
// e-mailed codes are its business): at most max attempts per window for one key, a client
// address (perClient) or a user id.
type rule struct {
	name      string
	max       int
	window    time.Duration
	perClient bool
}

// Registrations per address stop scripted sign-ups; links per address stop guessing tokens (not
// that 256 bits can be guessed, but a flood costs database work); authenticator codes per
// account bound guessing when setting up or turning off two-factor sign-in.
var (
	ruleRegister = rule{"register-ip", 20, time.Hour, true}
	ruleLinkIP   = rule{"link-ip", 60, 15 * time.Minute, true}
	ruleTOTP     = rule{"totp-account", 10, 15 * time.Minute, false}
	// ruleStepUp bounds confirmations ("it's me") per account: far more than a person needs
	// (one lasts five minutes), far too few to guess a password or a code.
	ruleStepUp = rule{"step-up-account", 10, 15 * time.Minute, false}
)

// key is the counter's key for one address or user. Both are hashed as the policy hashes its
// own, so the table never holds a client address or an id in the clear.
func (r rule) key(key string) string {
	if r.perClient {
		return r.name + ":" + ratelimit.ClientKey(key)
	}
	return r.name + ":" + ratelimit.AccountKey(key)
}

// limit counts an attempt and refuses it (429 with Retry-After) when over the rule. An empty
// key (a request with no client address) is not limited.
func (s *Service) limit(ctx context.Context, r rule, key string) error {
	if key == "" {
		return nil
	}
	ok, wait, err := s.limiter.Hit(ctx, r.key(key), r.max, r.window)
	if err != nil {
		return err
	}
	if !ok {
		return &ratelimit.LimitError{Wait: max(wait, time.Second)}
	}
	return nil
}

// loginFailed records a failed sign-in step for an account (for back-off). Failing to record it
// is logged, not fatal: the user's answer is already "wrong".
func (s *Service) loginFailed(ctx context.Context, account string) {
	if err := s.policy.LoginFailed(ctx, account); err != nil {
		s.log.WarnContext(ctx, "accounts: recording a failed sign-in failed", "err", err)
	}
}

// loginSucceeded clears an account's failures, so a person who finally got it right is not
// counted against later.
func (s *Service) loginSucceeded(ctx context.Context, account string) {
	if err := s.policy.LoginSucceeded(ctx, account); err != nil {
		s.log.WarnContext(ctx, "accounts: clearing sign-in failures failed", "err", err)
	}
}

// signInLimits are the sign-in limits one attempt counts against (ratelimit.Policy): the
// account's, or, for a browser holding a trusted-device cookie of the account, that browser's
// own, so that nobody can lock the owner (an admin) out by failing from elsewhere.
type signInLimits struct {
	s       *Service
	account string
	device  string // the trusted-device cookie; "" for any other browser
	ip      string
}

func (s *Service) signInLimits(account string, c Client, trusted bool) signInLimits {
	l := signInLimits{s: s, account: account, ip: c.IP}
	if trusted {
		l.device = c.DeviceToken
	}
	return l
}

// check counts the attempt, refusing it over a limit; call it before checking the credential.
func (l signInLimits) check(ctx context.Context) error {
	if l.device != "" {
		return l.s.policy.LoginFromTrustedDevice(ctx, l.device, l.ip)
	}
	return l.s.policy.Login(ctx, l.account, l.ip)
}

// failed records a wrong credential (for back-off).
func (l signInLimits) failed(ctx context.Context) {
	if l.device == "" {
		l.s.loginFailed(ctx, l.account)
		return
	}
	if err := l.s.policy.TrustedDeviceFailed(ctx, l.device); err != nil {
		l.s.log.WarnContext(ctx, "accounts: recording a failed sign-in failed", "err", err)
	}
}

// succeeded clears the failures of whoever just got it right.
func (l signInLimits) succeeded(ctx context.Context) {
	if l.device == "" {
		l.s.loginSucceeded(ctx, l.account)
		return
	}
	if err := l.s.policy.TrustedDeviceSucceeded(ctx, l.device); err != nil {
		l.s.log.WarnContext(ctx, "accounts: clearing sign-in failures failed", "err", err)
	}
}
