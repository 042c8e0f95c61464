// Package textcheck is the one check of the text people type that staff read or that names
// money: names, bios, support messages, testimonials, deposit notes, reasons. Such text is shown
// on staff screens, in e-mails and in statements, where characters nobody can see change what
// is read: a bidi override turns "txt.exe" into "exe.txt", a zero-width space makes one name or
// hash look like another, a carriage return or other control character forges a line.
//
// Refused everywhere: invalid UTF-8; control characters (C0, DEL, C1), except that multi-line
// text keeps line feeds and tabs; format characters (Unicode category Cf: the bidi embeddings,
// overrides and isolates U+202A–202E and U+2066–2069, the marks U+200E/200F and U+061C, the
// zero-width space, joiners and word joiner U+200B–200D and U+2060, the byte order mark U+FEFF,
// the soft hyphen, invisible operators and tags); the line and paragraph separators U+2028 and
// U+2029; and the blank fillers U+115F, U+1160, U+3164 and U+FFA0, which render as nothing.
// A carriage return is refused in multi-line text too: the browser sends line breaks as line
// feeds, and a lone CR is how lines are forged in logs and mail.
package textcheck

import (
	"unicode"
	"unicode/utf8"

	"clearvest/domain/domainerr"
)

// SingleLine reports whether s is acceptable one-line text (a name, a reason typed in one line).
func SingleLine(s string) bool { return clean(s, false) }

// MultiLine reports whether s is acceptable text of several lines (a message, a bio): as
// SingleLine, but line feeds and tabs are allowed.
func MultiLine(s string) bool { return clean(s, true) }

// Refusal is the 400 for a field whose text failed the check: "<label> contains invisible or
// control characters", naming the field for the client.
func Refusal(field, label string) *domainerr.Error {
	e := domainerr.New(domainerr.Invalid, Message(label))
	e.Field = field
	return e
}

// Message is Refusal's message, for a package that refines its own field error with it (so
// errors.Is still matches that error).
func Message(label string) string {
	return label + " contains invisible or control characters. Please remove them and try again."
}

func clean(s string, multiline bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == '\n' || r == '\t' {
			if !multiline {
				return false
			}
			continue
		}
		if Invisible(r) {
			return false
		}
	}
	return true
}

// Invisible reports whether r is refused in any text: a control or format character, a line or
// paragraph separator, or a blank filler.
func Invisible(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r < 0x7f:
		return false
	case r == 0x2028, r == 0x2029, r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}
