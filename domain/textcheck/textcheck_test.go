package textcheck_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"clearvest/domain/domainerr"
	"clearvest/domain/textcheck"
)

func TestChecks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in               string
		single, multiple bool
	}{
		{"", true, true},
		{"Ada Lovelace", true, true},
		{"José Müller-Łukasiewicz 李小龍 محمد", true, true},
		{"emoji 🙂 and flags 🇫🇷", true, true},
		{"two\nlines", false, true},
		{"a\ttab", false, true},
		{"crlf\r\nline", false, false},
		{"cr\ronly", false, false},
		{"nul\x00", false, false},
		{"bell\a", false, false},
		{"del\x7f", false, false},
		{"c1 \u0085 next line", false, false},
		{"c1 \u009b csi", false, false},
		{"rlo \u202e gpj.exe", false, false},
		{"lre \u202a", false, false},
		{"pdf \u202c", false, false},
		{"isolate \u2066x\u2069", false, false},
		{"lrm \u200e", false, false},
		{"alm \u061c", false, false},
		{"zwsp \u200b", false, false},
		{"zwnj \u200c", false, false},
		{"zwj \u200d", false, false},
		{"word joiner \u2060", false, false},
		{"\ufeffbom", false, false},
		{"soft\u00adhyphen", false, false},
		{"line\u2028separator", false, false},
		{"paragraph\u2029separator", false, false},
		{"hangul filler \u3164", false, false},
		{"tag \U000e0041", false, false},
		{"bad utf-8 \xff", false, false},
	} {
		if got := textcheck.SingleLine(tt.in); got != tt.single {
			t.Errorf("SingleLine(%q) = %v, want %v", tt.in, got, tt.single)
		}
		if got := textcheck.MultiLine(tt.in); got != tt.multiple {
			t.Errorf("MultiLine(%q) = %v, want %v", tt.in, got, tt.multiple)
		}
	}
}

func TestRefusal(t *testing.T) {
	t.Parallel()
	err := textcheck.Refusal("bio", "Bio")
	kind, msg, _ := domainerr.KindOf(err)
	var de *domainerr.Error
	if kind != domainerr.Invalid || !errors.As(err, &de) || de.Field != "bio" ||
		msg != "Bio contains invisible or control characters. Please remove them and try again." {
		t.Fatalf("%v %q %+v", kind, msg, de)
	}
}

// FuzzChecks: whatever the input, accepted text is valid UTF-8 with no refused character, single
// line text has no line feed or tab, and accepted single-line text is accepted as multi-line.
func FuzzChecks(f *testing.F) {
	for _, s := range []string{"Ada", "a\nb", "a\r\nb", "\u202eexe", "x\u200by", "\ufeff", "\t", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		single, multi := textcheck.SingleLine(s), textcheck.MultiLine(s)
		if single && !multi {
			t.Fatalf("%q is a good line but not good text", s)
		}
		if !multi {
			return
		}
		if !utf8.ValidString(s) {
			t.Fatalf("%q: invalid UTF-8 accepted", s)
		}
		for _, r := range s {
			if r == '\n' || r == '\t' {
				if single {
					t.Fatalf("%q: line break or tab in a single line", s)
				}
				continue
			}
			if textcheck.Invisible(r) || r == '\r' || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
				(r >= 0x200b && r <= 0x200d) || r == 0x2060 || r == 0xfeff {
				t.Fatalf("%q: %U accepted", s, r)
			}
		}
		if multi && strings.ContainsRune(s, '\r') {
			t.Fatalf("%q: CR accepted", s)
		}
	})
}
