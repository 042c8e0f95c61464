package password

import (
	_ "embed"
	"strings"
	"sync"
	"unicode/utf8"

	"clearvest/domain/domainerr"
)

// Length limits, in characters. The floor and the blocklist follow NIST SP 800-63B: length and
// "not a known favourite" protect better than composition rules, which only teach people to
// write Password1!. The ceiling keeps passphrases possible while bounding the work per hash.
const (
	MinLength = 8
	MaxLength = 128
)

func field(message string) *domainerr.Error {
	e := domainerr.New(domainerr.Invalid, message)
	e.Field = "password"
	return e
}

// Errors of Check. Their messages are shown to the user as they are.
var (
	ErrTooShort  = field("Password must be at least 8 characters")
	ErrTooLong   = field("Password must be at most 128 characters")
	ErrTooCommon = field("This password is too common. Please choose another.")
	ErrPersonal  = field("Your password must not be your email or name. Please choose another.")
)

//go:embed common.txt
var commonList string

// common is parsed on first use, so processes that never set a password never pay for it.
var common = sync.OnceValue(func() map[string]struct{} {
	set := make(map[string]struct{}, 8192)
	for line := range strings.Lines(commonList) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		set[strings.ToLower(line)] = struct{}{}
	}
	return set
})

// IsCommon reports whether password is on the list of common passwords, ignoring case: an
// attacker's dictionary tries Password1 as readily as password1.
func IsCommon(password string) bool {
	_, ok := common()[strings.ToLower(password)]
	return ok
}

// Check applies the policy for a new password. personal holds what an attacker would try first
// for this account (its e-mail, name); the password may not equal any of them, nor the e-mail's
// local part, ignoring case.
func Check(password string, personal ...string) error {
	n := utf8.RuneCountInString(password)
	switch {
	case n < MinLength:
		return ErrTooShort
	case n > MaxLength:
		return ErrTooLong
	case IsCommon(password):
		return ErrTooCommon
	}
	lower := strings.ToLower(password)
	for _, p := range personal {
		p = strings.ToLower(strings.TrimSpace(p))
		if p == "" {
			continue
		}
		local, _, _ := strings.Cut(p, "@")
		if lower == p || lower == local {
			return ErrPersonal
		}
	}
	return nil
}
