package identity_test

import (
	"errors"
	"testing"
	"time"

	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
)

var t0 = time.Date(2026, 11, 28, 14, 4, 30, 0, time.UTC)

func TestWithdrawalsPauseForADayAfterASecurityChange(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		history []aggregate.Event
		because string
	}{
		"password changed":     {[]aggregate.Event{identity.PasswordChanged{Via: identity.ViaChange, At: t0}}, "because your password was changed."},
		"password reset":       {[]aggregate.Event{identity.PasswordChanged{Via: identity.ViaReset, At: t0}}, "because your password was changed."},
		"two-factor turned on": {[]aggregate.Event{identity.TwoFactorEnabled{At: t0}}, "because two-factor authentication was turned on."},
		"two-factor turned off": {[]aggregate.Event{identity.TwoFactorEnabled{At: t0.Add(-48 * time.Hour)},
			identity.TwoFactorDisabled{At: t0}}, "because two-factor authentication was turned off."},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			u := loadUser(append([]aggregate.Event{registered}, tc.history...)...)
			err := u.MayWithdraw(t0.Add(time.Hour))
			var cd *identity.CooldownError
			if !errors.As(err, &cd) {
				t.Fatalf("an hour after: %v, want a cool-down", err)
			}
			want := "For your safety, withdrawals are paused until 29 Nov 2026, 14:05 UTC " + tc.because
			if err.Error() != want {
				t.Errorf("message %q, want %q", err.Error(), want)
			}
			if kind, _, _ := domainerr.KindOf(err); kind != domainerr.Forbidden || cd.ErrorCode() != "withdrawal_cooldown" ||
				!cd.Until().Equal(time.Date(2026, 11, 29, 14, 5, 0, 0, time.UTC)) {
				t.Errorf("kind %v, code %q, until %v", kind, cd.ErrorCode(), cd.Until())
			}
			if err := u.MayWithdraw(t0.Add(identity.SecurityCooldown - time.Second)); err == nil {
				t.Error("withdrawals resumed before the day was over")
			}
			if err := u.MayWithdraw(t0.Add(identity.SecurityCooldown)); err != nil {
				t.Errorf("a day after: %v", err)
			}
		})
	}
}

func TestWithdrawalsAreNotPausedWithoutARecentChange(t *testing.T) {
	t.Parallel()
	if err := loadUser(registered).MayWithdraw(t0); err != nil {
		t.Errorf("never changed: %v", err)
	}
	// Changes recorded before their time was kept start no cool-down.
	old := loadUser(registered, identity.PasswordChanged{Via: identity.ViaChange}, identity.TwoFactorEnabled{})
	if err := old.MayWithdraw(t0); err != nil {
		t.Errorf("changes without a time: %v", err)
	}
	// The latest change counts, not the first.
	u := loadUser(registered, identity.TwoFactorEnabled{At: t0.Add(-72 * time.Hour)},
		identity.PasswordChanged{Via: identity.ViaChange, At: t0.Add(-2 * time.Hour)})
	var cd *identity.CooldownError
	if err := u.MayWithdraw(t0); !errors.As(err, &cd) || cd.Change != identity.ChangedPassword {
		t.Errorf("latest change: %v", err)
	}
	if c, at := u.LastSecurityChange(); c != identity.ChangedPassword || !at.Equal(t0.Add(-2*time.Hour)) {
		t.Errorf("LastSecurityChange = %s, %v", c, at)
	}
}

func loadUser(history ...aggregate.Event) *identity.User {
	u := identity.New()
	aggregate.Load(u, int64(len(history)), history...)
	return u
}
