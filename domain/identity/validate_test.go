package identity_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
)

// Independent statements of what the hand-written validators accept, so the fuzzers check one
// against the other.
var (
	emailPattern = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*" +
		`@([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$`)
	phonePattern = regexp.MustCompile(`^\+?[1-9][0-9]{1,14}$`)
)

func emailGrammar(s string) bool {
	if !emailPattern.MatchString(s) || len(s) > identity.MaxEmailLength {
		return false
	}
	local, domain, _ := strings.Cut(s, "@")
	if len(local) > 64 {
		return false
	}
	for _, label := range strings.Split(domain, ".") {
		if len(label) > 63 {
			return false
		}
	}
	return true
}

func TestValidateEmail(t *testing.T) {
	t.Parallel()
	good := []string{
		"ada@example.com", "Ada.Lovelace+savings@mail.example.co.uk", "o'neil@example.ie",
		"x@a-b.io", "1@2.de", strings.Repeat("a", 64) + "@example.com",
	}
	bad := []string{
		"", "ada", "ada@", "@example.com", "ada@example", "ada@@example.com", "ada@example.c",
		".ada@example.com", "ada.@example.com", "a..da@example.com", "ada@-example.com",
		"ada@example-.com", "ada@exa_mple.com", "ada@example..com", "ada @example.com",
		" ada@example.com", "ada@example.com ", "\"ada\"@example.com", "ada@[203.0.113.7]",
		"ädä@example.com", "ada@example.123", strings.Repeat("a", 65) + "@example.com",
		"ada@" + strings.Repeat("a", 64) + ".com", "ada@example.com\n",
	}
	for _, s := range good {
		if err := identity.ValidateEmail(s); err != nil {
			t.Errorf("ValidateEmail(%q) = %v, want ok", s, err)
		}
	}
	for _, s := range bad {
		if err := identity.ValidateEmail(s); !errors.Is(err, identity.ErrInvalidEmail) {
			t.Errorf("ValidateEmail(%q) = %v, want ErrInvalidEmail", s, err)
		}
	}
	if _, msg, _ := domainerr.KindOf(identity.ErrInvalidEmail); msg != "Please enter a valid email" {
		t.Errorf("message %q", msg)
	}
}

func TestValidatePhone(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"+447700900123", "447700900123", "12", "+123456789012345"} {
		if err := identity.ValidatePhone(s); err != nil {
			t.Errorf("ValidatePhone(%q) = %v, want ok", s, err)
		}
	}
	for _, s := range []string{"", "+", "1", "+1", "0123", "+0123", "1234567890123456", "+44 7700", "++44", "44a", "１２３"} {
		if err := identity.ValidatePhone(s); !errors.Is(err, identity.ErrInvalidPhone) {
			t.Errorf("ValidatePhone(%q) = %v, want ErrInvalidPhone", s, err)
		}
	}
	if _, msg, _ := domainerr.KindOf(identity.ErrInvalidPhone); msg != "Please enter a valid Phone Number" {
		t.Errorf("message %q", msg)
	}
	if got := identity.NormalizePhone(" +44 (20) 7946-0958 "); got != "+442079460958" {
		t.Errorf("NormalizePhone = %q", got)
	}
}

func TestValidateOtherFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"a name", identity.ValidateName("Ada"), nil},
		{"an 80-character name", identity.ValidateName(strings.Repeat("ß", 80)), nil},
		{"an empty name", identity.ValidateName(""), identity.ErrNameRequired},
		{"an 81-character name", identity.ValidateName(strings.Repeat("ß", 81)), identity.ErrNameTooLong},
		{"a name with a tab", identity.ValidateName("A\tB"), identity.ErrInvalidName},
		{"a name of broken UTF-8", identity.ValidateName("A\xff"), identity.ErrInvalidName},
		{"a country", identity.ValidateCountry("DE"), nil},
		{"a lower-case country", identity.ValidateCountry("de"), identity.ErrInvalidCountry},
		{"a numeric country", identity.ValidateCountry("49"), identity.ErrInvalidCountry},
		{"an empty bio", identity.ValidateBio(""), nil},
		{"a photo path", identity.ValidatePhoto("/files/abc.jpg?v=2"), nil},
		{"no photo", identity.ValidatePhoto(""), nil},
		{"a photo path with a space", identity.ValidatePhoto("/files/a b.jpg"), identity.ErrInvalidPhoto},
	}
	for _, tc := range tests {
		if !errors.Is(tc.err, tc.want) || (tc.want == nil) != (tc.err == nil) {
			t.Errorf("%s: got %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if kind, msg, _ := domainerr.KindOf(identity.ErrInvalidRole); kind != domainerr.Invalid || msg != "Please select a role" {
		t.Errorf("ErrInvalidRole = %v %q", kind, msg)
	}
	if r, err := identity.ParseRole("author"); r != identity.RoleAuthor || err != nil {
		t.Errorf("ParseRole(author) = %q, %v", r, err)
	}
	if got := identity.EmailKey("  Ada@Example.COM "); got != "ada@example.com" {
		t.Errorf("EmailKey = %q", got)
	}
}

func FuzzValidateEmail(f *testing.F) {
	for _, s := range []string{
		"ada@example.com", "a.b+c@d-e.fg", "", "@", "a@b", "a@b.c", ".a@b.cd", "a@b..cd",
		"a@-b.cd", "\"a\"@b.cd", "a@b.cd\x00", "ä@b.cd", strings.Repeat("a", 70) + "@b.cd",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := identity.ValidateEmail(s)
		if accepted := err == nil; accepted != emailGrammar(s) {
			t.Fatalf("ValidateEmail(%q) = %v, but the documented pattern says accepted=%v", s, err, !accepted)
		}
		if err != nil && !errors.Is(err, identity.ErrInvalidEmail) {
			t.Fatalf("ValidateEmail(%q) = %v, want ErrInvalidEmail", s, err)
		}
	})
}

func FuzzValidatePhone(f *testing.F) {
	for _, s := range []string{"+447700900123", "12", "1", "+", "0", "+0", "1234567890123456", "１２", "+1 2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := identity.ValidatePhone(s)
		if accepted := err == nil; accepted != phonePattern.MatchString(s) {
			t.Fatalf("ValidatePhone(%q) = %v, but the specification's pattern says accepted=%v", s, err, !accepted)
		}
		if n := identity.NormalizePhone(s); identity.ValidatePhone(s) == nil && n != s {
			t.Fatalf("NormalizePhone changed the valid number %q to %q", s, n)
		}
	})
}
