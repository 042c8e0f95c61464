package identity

import (
	"fmt"
	"time"

	"clearvest/domain/domainerr"
)

// SecurityCooldown is how long withdrawals are paused after a change to how the account signs
// in. A thief who took over a session or a password would change exactly these to lock the owner
// out; a day gives the owner time to read the e-mail about it and stop them.
const SecurityCooldown = 24 * time.Hour

// SecurityChange names a change to how an account signs in.
type SecurityChange string

const (
	ChangedPassword     SecurityChange = "password"
	ChangedEmail        SecurityChange = "email"
	ChangedTwoFactorOn  SecurityChange = "two_factor_on"
	ChangedTwoFactorOff SecurityChange = "two_factor_off"
)

// because words a change for the cool-down message.
func (c SecurityChange) because() string {
	switch c {
	case ChangedPassword:
		return "your password was changed"
	case ChangedEmail:
		return "your e-mail address was changed"
	case ChangedTwoFactorOn:
		return "two-factor authentication was turned on"
	case ChangedTwoFactorOff:
		return "two-factor authentication was turned off"
	}
	return "your sign-in details were changed"
}

// ErrCooldownCode is the response code of a CooldownError.
const ErrCooldownCode = "withdrawal_cooldown"

// CooldownError refuses a withdrawal during the cool-down after a security change. It is a
// Forbidden refusal with code withdrawal_cooldown and the time it ends.
type CooldownError struct {
	Change SecurityChange
	Ends   time.Time
}

func (e *CooldownError) Error() string {
	return fmt.Sprintf("For your safety, withdrawals are paused until %s because %s.",
		e.Ends.UTC().Format("2 Jan 2006, 15:04 MST"), e.Change.because())
}

// Kind makes it a classified error (403).
func (e *CooldownError) Kind() domainerr.Kind { return domainerr.Forbidden }

// ErrorCode is the response's code.
func (e *CooldownError) ErrorCode() string { return ErrCooldownCode }

// Until is when withdrawals are possible again.
func (e *CooldownError) Until() time.Time { return e.Ends }

// securityChanged records the latest security change. A change without a time (recorded before
// times were kept) is old enough to start no cool-down.
func (u *User) securityChanged(c SecurityChange, at time.Time) {
	if at.IsZero() || at.Before(u.securityChangedAt) {
		return
	}
	u.securityChange, u.securityChangedAt = c, at
}

// LastSecurityChange is the latest change to how the account signs in and when it happened;
// a zero time when none with a known time was made.
func (u *User) LastSecurityChange() (SecurityChange, time.Time) {
	return u.securityChange, u.securityChangedAt
}

// MayWithdraw is the cool-down rule: nil, or a *CooldownError while SecurityCooldown has not
// passed since the latest security change. The cool-down ends at the minute after (rounded up),
// so the time the investor is told is never earlier than the real end.
func (u *User) MayWithdraw(now time.Time) error {
	if u.securityChangedAt.IsZero() {
		return nil
	}
	ends := u.securityChangedAt.Add(SecurityCooldown)
	if !now.Before(ends) {
		return nil
	}
	shown := ends.Truncate(time.Minute)
	if shown.Before(ends) {
		shown = shown.Add(time.Minute)
	}
	return &CooldownError{Change: u.securityChange, Ends: shown.UTC()}
}
