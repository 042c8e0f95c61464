package plaindecimal_test

import (
	"strings"
	"testing"

	"clearvest/domain/plaindecimal"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]string{"0": "0", "0.0040": "0.004", "1.5": "1.5", "250": "250", "007": "7"} {
		d, ok := plaindecimal.Parse(s)
		if !ok || d.String() != want {
			t.Errorf("Parse(%q) = %s, %v; want %s", s, d, ok, want)
		}
	}
	for _, s := range []string{"", ".", "1.", ".5", "-1", "+1", "1e3", "1,5", " 1", "1 ", "1.2.3", "0x10", "١"} {
		if d, ok := plaindecimal.Parse(s); ok {
			t.Errorf("Parse(%q) = %s, want refused", s, d)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "1.5", "1e3", "-1", "1.", "12345678901234567890.123"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := plaindecimal.Parse(s)
		intPart, frac, split := plaindecimal.Split(s)
		if ok != split {
			t.Fatalf("Parse and Split disagree on %q", s)
		}
		if !ok {
			return
		}
		// What was accepted reads back as the same digits, leading zeros aside.
		trimmed := strings.TrimLeft(intPart, "0")
		if trimmed == "" {
			trimmed = "0"
		}
		want := trimmed
		if frac != "" {
			want += "." + frac
		}
		if got := d.StringFixed(int32(len(frac))); got != want {
			t.Fatalf("%q read as %s, want %s", s, got, want)
		}
	})
}
