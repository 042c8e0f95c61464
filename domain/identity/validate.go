package identity

import (
	"strings"
	"unicode/utf8"

	"clearvest/domain/domainerr"
	"clearvest/domain/textcheck"
)

// Input limits. The API checks input with the same functions, so the user sees one message
// whichever layer catches a mistake first.
const (
	MaxNameLength   = 80  // characters
	MaxBioLength    = 500 // characters
	MaxReasonLength = 500 // characters
	MaxEmailLength  = 254 // bytes (RFC 5321 path limit)
	maxLocalLength  = 64  // bytes
	maxPhotoLength  = 500 // bytes
	maxUserAgent    = 512 // bytes; longer agents are cut, they identify a browser well before that
	maxIDLength     = 100 // bytes
)

// ValidateEmail accepts a plain address: a local part of letters, digits and
// .!#$%&'*+/=?^_`{|}~- (at most 64 bytes, dots only between other characters), "@", and a domain
// of dot-separated labels (letters, digits and inner hyphens, at most 63 bytes each) whose last
// label is 2 to 63 letters; at most 254 bytes in all. Quoted local parts, IP-literal domains
// and unicode are refused: none belongs to a real customer address and each has been a
// vector for header or lookup confusion. Surrounding spaces are the caller's to trim.
func ValidateEmail(email string) error {
	if len(email) > MaxEmailLength {
		return ErrInvalidEmail
	}
	local, domain, ok := strings.Cut(email, "@")
	if !ok || !validLocal(local) || !validDomain(domain) {
		return ErrInvalidEmail
	}
	return nil
}

func validLocal(s string) bool {
	if s == "" || len(s) > maxLocalLength || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !isAlnum(c) && c != '.' && !strings.ContainsRune("!#$%&'*+/=?^_`{|}~-", rune(c)) {
			return false
		}
	}
	return true
}

func validDomain(s string) bool {
	labels := strings.Split(s, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := range len(l) {
			if !isAlnum(l[i]) && l[i] != '-' {
				return false
			}
		}
	}
	tld := labels[len(labels)-1]
	if len(tld) < 2 {
		return false
	}
	for i := range len(tld) {
		if !isLetter(tld[i]) {
			return false
		}
	}
	return true
}

// EmailKey is the form addresses are compared and looked up in: trimmed and lower-cased.
// Mail systems treat local parts case-insensitively in practice, so two accounts differing only
// in case would be the same inbox.
func EmailKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// ValidatePhone accepts an optional leading "+", a first digit 1-9, then 1 to 14 digits (the
// specification's pattern: E.164 length, no separators). NormalizePhone removes separators first.
func ValidatePhone(phone string) error {
	s := strings.TrimPrefix(phone, "+")
	if len(s) < 2 || len(s) > 15 || s[0] == '0' {
		return ErrInvalidPhone
	}
	for i := range len(s) {
		if !isDigit(s[i]) {
			return ErrInvalidPhone
		}
	}
	return nil
}

// NormalizePhone trims the number and removes the spaces, dashes, dots and parentheses people
// type for readability, so "+44 (20) 7946-0958" is stored and compared as "+442079460958".
func NormalizePhone(phone string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(" \t-.()", r) {
			return -1
		}
		return r
	}, strings.TrimSpace(phone))
}

// ValidateName accepts 1 to 80 characters of one line of visible text (textcheck.SingleLine; the
// caller trims).
func ValidateName(name string) error {
	switch {
	case name == "":
		return ErrNameRequired
	case !textcheck.SingleLine(name):
		return ErrNameInvisible
	case utf8.RuneCountInString(name) > MaxNameLength:
		return ErrNameTooLong
	}
	return nil
}

// ValidateBio accepts up to 500 characters; line feeds and tabs are allowed, other control and
// invisible characters are not (textcheck.MultiLine).
func ValidateBio(bio string) error {
	switch {
	case !textcheck.MultiLine(bio):
		return ErrBioInvisible
	case utf8.RuneCountInString(bio) > MaxBioLength:
		return ErrBioTooLong
	}
	return nil
}

// ValidateCountry accepts an ISO 3166-1 alpha-2 shape: two upper-case letters. Whether the code
// exists is checked by the API against the geo list, which the domain does not carry.
func ValidateCountry(code string) error {
	if len(code) != 2 || !isUpper(code[0]) || !isUpper(code[1]) {
		return ErrInvalidCountry
	}
	return nil
}

// ValidatePhoto accepts "" (no photo) or a path on our own origin ("/files/…"). Absolute and
// protocol-relative URLs are refused, so a profile can never make browsers fetch from a third
// party; a backslash is refused too, because browsers read "/\host" as "//host".
func ValidatePhoto(photo string) error {
	if photo == "" {
		return nil
	}
	if len(photo) > maxPhotoLength || photo[0] != '/' || strings.HasPrefix(photo, "//") {
		return ErrInvalidPhoto
	}
	for i := range len(photo) {
		if c := photo[i]; c <= ' ' || c >= 0x7f || strings.IndexByte("\\\"<>`", c) >= 0 {
			return ErrInvalidPhoto
		}
	}
	return nil
}

// ParseRole returns the role named by s, or ErrInvalidRole.
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case RoleSubscriber, RoleAuthor, RoleAdmin:
		return r, nil
	}
	return "", ErrInvalidRole
}

func validateReason(reason string) error {
	if !textcheck.MultiLine(reason) {
		return ErrReasonInvisible
	}
	if utf8.RuneCountInString(reason) > MaxReasonLength {
		return ErrInvalidReason
	}
	return nil
}

func validateReferralCode(code string) error {
	if code == "" || len(code) > 32 {
		return ErrInvalidReferralCode
	}
	for i := range len(code) {
		if c := code[i]; !isAlnum(c) && c != '-' && c != '_' {
			return ErrInvalidReferralCode
		}
	}
	return nil
}

// validateID checks ids the caller makes (user, device and staff ids): they end up in stream
// names and log lines, so they are short and printable.
func validateID(id string, err *domainerr.Error) error {
	if id == "" || len(id) > maxIDLength {
		return err
	}
	for i := range len(id) {
		if c := id[i]; c <= ' ' || c >= 0x7f {
			return err
		}
	}
	return nil
}

// truncate cuts s to at most n bytes without splitting a character.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isUpper(c byte) bool  { return 'A' <= c && c <= 'Z' }
func isLetter(c byte) bool { return isUpper(c) || 'a' <= c && c <= 'z' }
func isAlnum(c byte) bool  { return isLetter(c) || isDigit(c) }
