package identity_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"clearvest/domain/aggregate"
	"clearvest/domain/aggregate/aggregatetest"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
)

const (
	userID  = "0191f3a0-0000-7000-8000-000000000001"
	adminID = "0191f3a0-0000-7000-8000-0000000000ad"
	otherID = "0191f3a0-0000-7000-8000-000000000002"
)

var users = aggregatetest.For(identity.New)

var registered = identity.Registered{
	UserID: userID, Name: "Ada Lovelace", Email: "Ada@Example.com", Phone: "+447700900123", Country: "GB",
	ReferralCode: "ADA123", Role: identity.RoleSubscriber,
}

var registeredAdmin = identity.Registered{
	UserID: adminID, Name: "Grace", Email: "grace@example.com", ReferralCode: "GRACE1", Role: identity.RoleAdmin,
}

func params() identity.RegisterParams {
	return identity.RegisterParams{
		UserID: userID, Name: "Ada Lovelace", Email: "Ada@Example.com", Phone: "+447700900123", Country: "GB",
		ReferralCode: "ADA123",
	}
}

func TestRegister(t *testing.T) {
	t.Parallel()
	t.Run("a new user becomes a subscriber", func(t *testing.T) {
		t.Parallel()
		u := users.Given().
			When(func(u *identity.User) error { return u.Register(params()) }).
			Then(t, registered)
		if u.ID() != userID || u.Role() != identity.RoleSubscriber || u.Status() != identity.StatusActive || u.EmailVerified() {
			t.Fatalf("after registration: id %q role %q status %q verified %v", u.ID(), u.Role(), u.Status(), u.EmailVerified())
		}
	})
	t.Run("typed input is trimmed and normalised", func(t *testing.T) {
		t.Parallel()
		p := params()
		p.Name, p.Email, p.Phone, p.Country = "  Ada Lovelace ", " Ada@Example.com ", "+44 7700-900 123", " gb"
		users.Given().When(func(u *identity.User) error { return u.Register(p) }).Then(t, registered)
	})
	t.Run("phone and country may be left out", func(t *testing.T) {
		t.Parallel()
		p := params()
		p.Phone, p.Country = "", ""
		want := registered
		want.Phone, want.Country = "", ""
		users.Given().When(func(u *identity.User) error { return u.Register(p) }).Then(t, want)
	})
	t.Run("a referred user records the referrer", func(t *testing.T) {
		t.Parallel()
		p := params()
		p.ReferredBy = otherID
		want := registered
		want.ReferredBy = otherID
		u := users.Given().When(func(u *identity.User) error { return u.Register(p) }).Then(t, want)
		if u.ReferredBy() != otherID || u.ReferralCode() != "ADA123" {
			t.Fatalf("referredBy %q, code %q", u.ReferredBy(), u.ReferralCode())
		}
	})
	t.Run("start-up tooling may register an admin", func(t *testing.T) {
		t.Parallel()
		p := params()
		p.Role = identity.RoleAdmin
		want := registered
		want.Role = identity.RoleAdmin
		users.Given().When(func(u *identity.User) error { return u.Register(p) }).Then(t, want)
	})

	refused := []struct {
		name   string
		change func(*identity.RegisterParams)
		want   error
	}{
		{"no name", func(p *identity.RegisterParams) { p.Name = "  " }, identity.ErrNameRequired},
		{"a name too long", func(p *identity.RegisterParams) { p.Name = strings.Repeat("é", 81) }, identity.ErrNameTooLong},
		{"a name with a line break", func(p *identity.RegisterParams) { p.Name = "Ada\nLovelace" }, identity.ErrInvalidName},
		{"a name with a bidi override", func(p *identity.RegisterParams) { p.Name = "Ada \u202eecalevoL" }, identity.ErrNameInvisible},
		{"a name with a zero-width space", func(p *identity.RegisterParams) { p.Name = "Ad\u200ba" }, identity.ErrNameInvisible},
		{"a bad e-mail", func(p *identity.RegisterParams) { p.Email = "ada@example" }, identity.ErrInvalidEmail},
		{"no e-mail", func(p *identity.RegisterParams) { p.Email = "" }, identity.ErrInvalidEmail},
		{"a bad phone", func(p *identity.RegisterParams) { p.Phone = "0123" }, identity.ErrInvalidPhone},
		{"a bad country", func(p *identity.RegisterParams) { p.Country = "GBR" }, identity.ErrInvalidCountry},
		{"no referral code", func(p *identity.RegisterParams) { p.ReferralCode = "" }, identity.ErrInvalidReferralCode},
		{"a referral code with spaces", func(p *identity.RegisterParams) { p.ReferralCode = "A B" }, identity.ErrInvalidReferralCode},
		{"referring oneself", func(p *identity.RegisterParams) { p.ReferredBy = userID }, identity.ErrSelfReferral},
		{"an unknown role", func(p *identity.RegisterParams) { p.Role = "owner" }, identity.ErrInvalidRole},
		{"no user id", func(p *identity.RegisterParams) { p.UserID = "" }, identity.ErrInvalidUserID},
		{"a user id with spaces", func(p *identity.RegisterParams) { p.UserID = "a b" }, identity.ErrInvalidUserID},
	}
	for _, tc := range refused {
		t.Run("refused: "+tc.name, func(t *testing.T) {
			t.Parallel()
			p := params()
			tc.change(&p)
			users.Given().When(func(u *identity.User) error { return u.Register(p) }).ThenError(t, tc.want)
		})
	}
	t.Run("refused: registering twice", func(t *testing.T) {
		t.Parallel()
		users.Given(registered).
			When(func(u *identity.User) error { return u.Register(params()) }).
			ThenError(t, identity.ErrAlreadyRegistered)
	})
}

func TestCommandsNeedARegisteredUser(t *testing.T) {
	t.Parallel()
	for name, cmd := range commands() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			users.Given().When(cmd).ThenError(t, identity.ErrNotRegistered)
		})
	}
}

func TestAClosedAccountAcceptsNoCommands(t *testing.T) {
	t.Parallel()
	for name, cmd := range commands() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			users.Given(registered, identity.Closed{}).When(cmd).ThenError(t, identity.ErrClosed)
		})
	}
}

// commands lists one valid call of every command after registration.
func commands() map[string]func(*identity.User) error {
	return map[string]func(*identity.User) error{
		"verify e-mail":   (*identity.User).VerifyEmail,
		"update profile":  func(u *identity.User) error { return u.UpdateProfile(identity.Profile{Name: "Ada"}) },
		"change role":     func(u *identity.User) error { return u.ChangeRole(adminID, identity.RoleAuthor) },
		"suspend":         func(u *identity.User) error { return u.Suspend(adminID, "") },
		"reinstate":       (*identity.User).Reinstate,
		"password change": func(u *identity.User) error { return u.RecordPasswordChange(identity.ViaReset, t0) },
		"new device":      func(u *identity.User) error { return u.RecordNewDevice("dev-1", "203.0.113.7", "Firefox") },
		"enable 2FA":      func(u *identity.User) error { return u.EnableTwoFactor(t0) },
		"disable 2FA":     func(u *identity.User) error { return u.DisableTwoFactor(t0) },
		"staff access":    func(u *identity.User) error { return u.RecordStaffAccess(adminID, "support ticket") },
		"close":           func(u *identity.User) error { return u.Close(userID) },
		"can sign in":     (*identity.User).CanSignIn,
	}
}

func TestVerifyEmail(t *testing.T) {
	t.Parallel()
	t.Run("the first verification counts", func(t *testing.T) {
		t.Parallel()
		u := users.Given(registered).When((*identity.User).VerifyEmail).Then(t, identity.EmailVerified{})
		if !u.EmailVerified() {
			t.Fatal("not verified after EmailVerified")
		}
	})
	t.Run("an e-mail is verified once", func(t *testing.T) {
		t.Parallel()
		users.Given(registered, identity.EmailVerified{}).
			When((*identity.User).VerifyEmail).
			ThenError(t, identity.ErrAlreadyVerified)
	})
	t.Run("the message is the user's", func(t *testing.T) {
		t.Parallel()
		kind, msg, _ := domainerr.KindOf(identity.ErrAlreadyVerified)
		if kind != domainerr.Conflict || msg != "Email is already verified" {
			t.Fatalf("ErrAlreadyVerified = %v %q", kind, msg)
		}
	})
}

func TestUpdateProfile(t *testing.T) {
	t.Parallel()
	full := identity.Profile{Name: "Ada King", Phone: "+447700900999", Bio: "Analyst.\nPoet.", Country: "FR", Photo: "/files/photos/ada.png"}
	t.Run("the whole new profile is recorded", func(t *testing.T) {
		t.Parallel()
		u := users.Given(registered).
			When(func(u *identity.User) error { return u.UpdateProfile(full) }).
			Then(t, identity.ProfileUpdated{Name: "Ada King", Phone: "+447700900999", Bio: "Analyst.\nPoet.", Country: "FR", Photo: "/files/photos/ada.png"})
		if u.Profile() != full {
			t.Fatalf("profile = %+v", u.Profile())
		}
	})
	t.Run("a partial edit starts from the current profile", func(t *testing.T) {
		t.Parallel()
		users.Given(registered).
			When(func(u *identity.User) error {
				p := u.Profile()
				p.Bio = "Hello"
				return u.UpdateProfile(p)
			}).
			Then(t, identity.ProfileUpdated{Name: "Ada Lovelace", Phone: "+447700900123", Bio: "Hello", Country: "GB"})
	})
	t.Run("an update that changes nothing records nothing", func(t *testing.T) {
		t.Parallel()
		users.Given(registered).
			When(func(u *identity.User) error {
				return u.UpdateProfile(identity.Profile{Name: " Ada Lovelace", Phone: "+44 7700 900123", Country: "gb"})
			}).
			Then(t)
	})
	refused := []struct {
		name string
		p    identity.Profile
		want error
	}{
		{"no name", identity.Profile{}, identity.ErrNameRequired},
		{"a name of 81 characters", identity.Profile{Name: strings.Repeat("a", 81)}, identity.ErrNameTooLong},
		{"a bio of 501 characters", identity.Profile{Name: "A", Bio: strings.Repeat("ü", 501)}, identity.ErrBioTooLong},
		{"a bio with control characters", identity.Profile{Name: "A", Bio: "a\x00b"}, identity.ErrInvalidBio},
		{"a bio with a carriage return", identity.Profile{Name: "A", Bio: "a\rb"}, identity.ErrBioInvisible},
		{"a bio with a bidi isolate", identity.Profile{Name: "A", Bio: "a\u2066b"}, identity.ErrBioInvisible},
		{"a name with a byte order mark", identity.Profile{Name: "\ufeffA"}, identity.ErrNameInvisible},
		{"a bad phone", identity.Profile{Name: "A", Phone: "+1"}, identity.ErrInvalidPhone},
		{"a lower-case three-letter country", identity.Profile{Name: "A", Country: "fra"}, identity.ErrInvalidCountry},
		{"a photo elsewhere", identity.Profile{Name: "A", Photo: "https://evil.example/a.png"}, identity.ErrInvalidPhoto},
		{"a protocol-relative photo", identity.Profile{Name: "A", Photo: "//evil.example/a.png"}, identity.ErrInvalidPhoto},
		{"a photo path with a backslash", identity.Profile{Name: "A", Photo: "/\\evil.example/a.png"}, identity.ErrInvalidPhoto},
		{"a javascript photo", identity.Profile{Name: "A", Photo: "javascript:alert(1)"}, identity.ErrInvalidPhoto},
	}
	for _, tc := range refused {
		t.Run("refused: "+tc.name, func(t *testing.T) {
			t.Parallel()
			users.Given(registered).When(func(u *identity.User) error { return u.UpdateProfile(tc.p) }).ThenError(t, tc.want)
		})
	}
	t.Run("a bio of exactly 500 characters is fine", func(t *testing.T) {
		t.Parallel()
		bio := strings.Repeat("ü", 500)
		users.Given(registered).
			When(func(u *identity.User) error { return u.UpdateProfile(identity.Profile{Name: "Ada", Bio: bio}) }).
			Then(t, identity.ProfileUpdated{Name: "Ada", Bio: bio})
	})
}

func TestChangeRole(t *testing.T) {
	t.Parallel()
	t.Run("an admin promotes a subscriber", func(t *testing.T) {
		t.Parallel()
		u := users.Given(registered).
			When(func(u *identity.User) error { return u.ChangeRole(adminID, identity.RoleAuthor) }).
			Then(t, identity.RoleChanged{From: identity.RoleSubscriber, To: identity.RoleAuthor})
		if u.Role() != identity.RoleAuthor {
			t.Fatalf("role = %q", u.Role())
		}
	})
	t.Run("the role the user has already records nothing", func(t *testing.T) {
		t.Parallel()
		users.Given(registered).
			When(func(u *identity.User) error { return u.ChangeRole(adminID, identity.RoleSubscriber) }).
			Then(t)
	})
	t.Run("an unknown role is refused", func(t *testing.T) {
		t.Parallel()
		users.Given(registered).
			When(func(u *identity.User) error { return u.ChangeRole(adminID, "suspended") }).
			ThenError(t, identity.ErrInvalidRole)
	})
	t.Run("an admin cannot demote themselves", func(t *testing.T) {
		t.Parallel()
		users.Given(registeredAdmin).
			When(func(u *identity.User) error { return u.ChangeRole(adminID, identity.RoleSubscriber) }).
			ThenError(t, identity.ErrOwnRole)
	})
	t.Run("nobody promotes themselves", func(t *testing.T) {
		t.Parallel()
		users.Given(registered).
			When(func(u *identity.User) error { return u.ChangeRole(userID, identity.RoleAdmin) }).
			ThenError(t, identity.ErrOwnRole)
	})
}

func TestSuspendAndReinstate(t *testing.T) {
	t.Parallel()
	t.Run("an admin suspends a user, who can no longer sign in", func(t *testing.T) {
		t.Parallel()
		u := users.Given(registered).
			When(func(u *identity.User) error { return u.Suspend(adminID, "  chargeback fraud ") }).
			Then(t, identity.Suspended{Reason: "chargeback fraud"})
		if u.Status() != identity.StatusSuspended || !errors.Is(u.CanSignIn(), identity.ErrSuspended) {
			t.Fatalf("status %q, CanSignIn %v", u.Status(), u.CanSignIn())
		}
		kind, msg, _ := domainerr.KindOf(u.CanSignIn())
		if kind != domainerr.Forbidden || !strings.Contains(msg, "suspended") {
			t.Fatalf("CanSignIn = %v %q; the UI opens its suspended modal on that word", kind, msg)
		}
	})
	t.Run("a suspended user cannot sign in on a new device", func(t *testing.T) {
		t.Parallel()
		users.Given(registered, identity.Suspended{}).
			When(func(u *identity.User) error { return u.RecordNewDevice("dev-1", "203.0.113.7", "Firefox") }).
			ThenError(t, identity.ErrSuspended)
	})
	t.Run("an admin cannot suspend themselves", func(t *testing.T) {
		t.Parallel()
		users.Given(registeredAdmin).
			When(func(u *identity.User) error { return u.Suspend(adminID, "") }).
			ThenError(t, identity.ErrOwnSuspension)
	})
	t.Run("suspending twice is refused", func(t *testing.T) {
		t.Parallel()
		users.Given(registered, identity.Suspended{}).
			When(func(u *identity.User) error { return u.Suspend(adminID, "") }).
			ThenError(t, identity.ErrAlreadySuspended)
	})
	t.Run("an over-long reason is refused", func(t *testing.T) {
		t.Parallel()
		users.Given(registered).
			When(func(u *identity.User) error { return u.Suspend(adminID, strings.Repeat("x", 501)) }).
			ThenError(t, identity.ErrInvalidReason)
	})
	t.Run("reinstating lets the user sign in again", func(t *testing.T) {
		t.Parallel()
		u := users.Given(registered, identity.Suspended{Reason: "x"}).
			When((*identity.User).Reinstate).
			Then(t, identity.Reinstated{})
		if u.Status() != identity.StatusActive || u.CanSignIn() != nil {
			t.Fatalf("status %q, CanSignIn %v", u.Status(), u.CanSignIn())
		}
	})
	t.Run("only a suspended user is reinstated", func(t *testing.T) {
		t.Parallel()
		users.Given(registered).When((*identity.User).Reinstate).ThenError(t, identity.ErrNotSuspended)
	})
}

func TestPasswordChange(t *testing.T) {
	t.Parallel()
	for _, via := range []string{identity.ViaChange, identity.ViaReset} {
		t.Run("via "+via, func(t *testing.T) {
			t.Parallel()
			users.Given(registered).
				When(func(u *identity.User) error { return u.RecordPasswordChange(via, t0) }).
				Then(t, identity.PasswordChanged{Via: via, At: t0})
		})
	}
	t.Run("a suspended user may still reset their password", func(t *testing.T) {
		t.Parallel()
		users.Given(registered, identity.Suspended{}).
			When(func(u *identity.User) error { return u.RecordPasswordChange(identity.ViaReset, t0) }).
			Then(t, identity.PasswordChanged{Via: identity.ViaReset, At: t0})
	})
	t.Run("an unknown channel is refused", func(t *testing.T) {
		t.Parallel()
		users.Given(registered).
			When(func(u *identity.User) error { return u.RecordPasswordChange("hash:abc", t0) }).
			ThenError(t, identity.ErrInvalidVia)
	})
}

func TestNewDevice(t *testing.T) {
	t.Parallel()
	t.Run("recorded with its address and browser", func(t *testing.T) {
		t.Parallel()
		users.Given(registered).
			When(func(u *identity.User) error { return u.RecordNewDevice("dev-1", " 203.0.113.7 ", "Firefox/128") }).
			Then(t, identity.SignedInNewDevice{DeviceID: "dev-1", IP: "203.0.113.7", UserAgent: "Firefox/128"})
	})
	t.Run("an over-long user agent is cut on a character boundary", func(t *testing.T) {
		t.Parallel()
		agent := strings.Repeat("a", 511) + "ü" + "tail"
		users.Given(registered).
			When(func(u *identity.User) error { return u.RecordNewDevice("dev-1", "", agent) }).
			Then(t, identity.SignedInNewDevice{DeviceID: "dev-1", UserAgent: strings.Repeat("a", 511)})
	})
	t.Run("a device id is required", func(t *testing.T) {
		t.Parallel()
		users.Given(registered).
			When(func(u *identity.User) error { return u.RecordNewDevice("", "203.0.113.7", "Firefox") }).
			ThenError(t, identity.ErrInvalidDeviceID)
	})
}

func TestTwoFactor(t *testing.T) {
	t.Parallel()
	t.Run("enabled", func(t *testing.T) {
		t.Parallel()
		u := users.Given(registered).When(enable2FA).Then(t, identity.TwoFactorEnabled{At: t0})
		if !u.TwoFactorEnabled() {
			t.Fatal("two-factor not on")
		}
	})
	t.Run("enabling twice is refused", func(t *testing.T) {
		t.Parallel()
		users.Given(registered, identity.TwoFactorEnabled{}).
			When(enable2FA).
			ThenError(t, identity.ErrTwoFactorAlreadyEnabled)
	})
	t.Run("disabled", func(t *testing.T) {
		t.Parallel()
		u := users.Given(registered, identity.TwoFactorEnabled{}).
			When(disable2FA).
			Then(t, identity.TwoFactorDisabled{At: t0})
		if u.TwoFactorEnabled() {
			t.Fatal("two-factor still on")
		}
	})
	t.Run("disabling when off is refused", func(t *testing.T) {
		t.Parallel()
		users.Given(registered).When(disable2FA).ThenError(t, identity.ErrTwoFactorNotEnabled)
	})
}

func TestStaffAccess(t *testing.T) {
	t.Parallel()
	t.Run("recorded for the user to see", func(t *testing.T) {
		t.Parallel()
		users.Given(registered).
			When(func(u *identity.User) error { return u.RecordStaffAccess(adminID, "ticket 42") }).
			Then(t, identity.StaffAccessed{StaffID: adminID, Reason: "ticket 42"})
	})
	t.Run("staff cannot open their own account as staff", func(t *testing.T) {
		t.Parallel()
		users.Given(registeredAdmin).
			When(func(u *identity.User) error { return u.RecordStaffAccess(adminID, "") }).
			ThenError(t, identity.ErrOwnStaffAccess)
	})
	t.Run("a staff id is required", func(t *testing.T) {
		t.Parallel()
		users.Given(registered).
			When(func(u *identity.User) error { return u.RecordStaffAccess("", "") }).
			ThenError(t, identity.ErrInvalidStaffID)
	})
}

func TestClose(t *testing.T) {
	t.Parallel()
	t.Run("a user closes their own account", func(t *testing.T) {
		t.Parallel()
		u := users.Given(registered).When(func(u *identity.User) error { return u.Close(userID) }).Then(t, identity.Closed{})
		if u.Status() != identity.StatusClosed {
			t.Fatalf("status %q", u.Status())
		}
	})
	t.Run("an admin closes a suspended account", func(t *testing.T) {
		t.Parallel()
		users.Given(registered, identity.Suspended{}).
			When(func(u *identity.User) error { return u.Close(adminID) }).
			Then(t, identity.Closed{})
	})
	t.Run("an admin cannot close their own account", func(t *testing.T) {
		t.Parallel()
		users.Given(registeredAdmin).
			When(func(u *identity.User) error { return u.Close(adminID) }).
			ThenError(t, identity.ErrOwnClosure)
	})
	t.Run("the message is the user's", func(t *testing.T) {
		t.Parallel()
		kind, msg, _ := domainerr.KindOf(identity.ErrClosed)
		if kind != domainerr.RuleBroken || msg != "This account is closed" {
			t.Fatalf("ErrClosed = %v %q", kind, msg)
		}
	})
}

// fakeRegistry records registrations the way *eventstore.Registry would receive them.
type fakeRegistry map[string]int

func (f fakeRegistry) RegisterEvent(e aggregate.Event, v int) { f[e.EventName()] = v }

func TestConsentNamesBothDocuments(t *testing.T) {
	t.Parallel()
	users.Given(registered).
		When(func(u *identity.User) error { return u.AcceptTerms("2026-11-28", "2026-11-01") }).
		Then(t, identity.TermsAccepted{TermsVersion: "2026-11-28", PrivacyVersion: "2026-11-01"})
	users.Given(registered).
		When(func(u *identity.User) error { return u.AcceptTerms("2026-11-28", " ") }).
		ThenError(t, identity.ErrTermsNotAccepted)
}

func TestLanguageDefaultsToEnglishAndIsOneWeOffer(t *testing.T) {
	t.Parallel()
	u := users.Given(registered).
		When(func(u *identity.User) error { return u.SetLanguage("de") }).
		Then(t, identity.LanguageChanged{Language: "de"})
	if u.Language() != "de" {
		t.Errorf("language %q after choosing German", u.Language())
	}
	if u := users.Given(registered).When(func(*identity.User) error { return nil }).Then(t); u.Language() != "en" {
		t.Errorf("language %q without a choice, want en", u.Language())
	}
	users.Given(registered).When(func(u *identity.User) error { return u.SetLanguage("en") }).Then(t)
	users.Given(registered).When(func(u *identity.User) error { return u.SetLanguage("xx") }).ThenError(t, identity.ErrInvalidLanguage)
}

func TestRegisterEventsRegistersEveryTypeOnceAtVersionOne(t *testing.T) {
	t.Parallel()
	got := fakeRegistry{}
	identity.RegisterEvents(got)
	want := []string{
		"user.registered", "user.email_verified", "user.profile_updated", "user.role_changed",
		"user.suspended", "user.reinstated", "user.password_changed", "user.signed_in_new_device",
		"user.two_factor_enabled", "user.two_factor_disabled", "user.staff_accessed", "user.closed",
		"user.terms_accepted", "user.language_changed",
		"user.passkey_added", "user.passkey_used", "user.passkey_removed",
		"user.impersonation_started", "user.impersonation_ended", "user.impersonated_viewed",
	}
	if len(got) != len(want) {
		t.Fatalf("registered %d types, want %d: %v", len(got), len(want), got)
	}
	for _, name := range want {
		if got[name] != 1 {
			t.Errorf("%s registered at version %d, want 1", name, got[name])
		}
	}
}

func enable2FA(u *identity.User) error  { return u.EnableTwoFactor(t0) }
func disable2FA(u *identity.User) error { return u.DisableTwoFactor(t0) }

func TestImpersonation(t *testing.T) {
	t.Parallel()
	until := time.Date(2030, 1, 1, 0, 15, 0, 0, time.UTC)
	start := func(role identity.Role) func(u *identity.User) error {
		return func(u *identity.User) error { return u.StartImpersonation(adminID, role, "view-1", until) }
	}
	t.Run("an admin views a user", func(t *testing.T) {
		t.Parallel()
		users.Given(registered).When(start(identity.RoleAdmin)).
			Then(t, identity.ImpersonationStarted{StaffID: adminID, StaffRole: identity.RoleAdmin, SessionID: "view-1", ExpiresAt: until})
	})
	t.Run("an author does not", func(t *testing.T) {
		t.Parallel()
		users.Given(registered).When(start(identity.RoleAuthor)).ThenError(t, identity.ErrImpersonateStaff)
	})
	t.Run("nobody views as an admin, themselves included", func(t *testing.T) {
		t.Parallel()
		users.Given(registeredAdmin).When(start(identity.RoleAdmin)).ThenError(t, identity.ErrImpersonateSelf)
		users.Given(registered, identity.RoleChanged{From: identity.RoleSubscriber, To: identity.RoleAdmin}).
			When(start(identity.RoleAdmin)).ThenError(t, identity.ErrImpersonateAdmin)
	})
	t.Run("nor as a closed or suspended account", func(t *testing.T) {
		t.Parallel()
		users.Given(registered, identity.Closed{}).When(start(identity.RoleAdmin)).ThenError(t, identity.ErrImpersonateClosed)
		users.Given(registered, identity.Suspended{Reason: "fraud"}).When(start(identity.RoleAdmin)).ThenError(t, identity.ErrImpersonateSuspended)
	})
}
