package identity_test

import (
	"strings"
	"testing"
	"time"

	"clearvest/domain/identity"
)

var at = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

var laptop = identity.PasskeyAdded{CredentialID: "cred-1", PublicKey: []byte{1, 2}, Transports: []string{"internal"}, Name: "Laptop", At: at}

func TestAddPasskeyTrimsItsNameAndRefusesDuplicatesAndBadNames(t *testing.T) {
	t.Parallel()
	key := identity.Passkey{CredentialID: "cred-1", PublicKey: []byte{1, 2}, Transports: []string{"internal"}, Name: "  Laptop "}
	u := users.Given(registered).When(func(u *identity.User) error { return u.AddPasskey(key, at) }).Then(t, laptop)
	if !u.HasPasskey() || !u.HasSecondFactor() || u.Passkeys()[0].Name != "Laptop" {
		t.Fatalf("after adding: %+v", u.Passkeys())
	}
	users.Given(registered, laptop).When(func(u *identity.User) error { return u.AddPasskey(key, at) }).ThenError(t, identity.ErrPasskeyExists)
	for name, want := range map[string]error{
		"   ":                   identity.ErrPasskeyNameRequired,
		strings.Repeat("a", 61): identity.ErrPasskeyNameTooLong,
		"Laptop\u200b":          identity.ErrPasskeyNameInvisible,
	} {
		k := key
		k.Name = name
		users.Given(registered).When(func(u *identity.User) error { return u.AddPasskey(k, at) }).ThenError(t, want)
	}
}

func TestUsePasskeyNeedsTheCounterToAdvance(t *testing.T) {
	t.Parallel()
	used := identity.PasskeyUsed{CredentialID: "cred-1", SignCount: 3, At: at}
	u := users.Given(registered, laptop).When(func(u *identity.User) error { return u.UsePasskey("cred-1", 3, at) }).Then(t, used)
	if p, _ := u.PasskeyByID("cred-1"); p.SignCount != 3 || !p.LastUsedAt.Equal(at) {
		t.Fatalf("after a use: %+v", p)
	}
	for _, count := range []uint32{3, 2, 0} {
		users.Given(registered, laptop, used).When(func(u *identity.User) error { return u.UsePasskey("cred-1", count, at) }).
			ThenError(t, identity.ErrPasskeyCounter)
	}
	// An authenticator that keeps no counter (always zero) is not a copy.
	users.Given(registered, laptop).When(func(u *identity.User) error { return u.UsePasskey("cred-1", 0, at) }).
		Then(t, identity.PasskeyUsed{CredentialID: "cred-1", At: at})
	users.Given(registered, laptop).When(func(u *identity.User) error { return u.UsePasskey("other", 1, at) }).ThenError(t, identity.ErrPasskeyNotFound)
}

func TestRemovePasskey(t *testing.T) {
	t.Parallel()
	u := users.Given(registered, laptop).When(func(u *identity.User) error { return u.RemovePasskey("cred-1", at) }).
		Then(t, identity.PasskeyRemoved{CredentialID: "cred-1", At: at})
	if u.HasPasskey() || u.HasSecondFactor() {
		t.Fatal("a removed passkey still counts")
	}
	users.Given(registered).When(func(u *identity.User) error { return u.RemovePasskey("cred-1", at) }).
		ThenError(t, identity.ErrPasskeyNotFound)
}
