package geo

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCountriesComplete(t *testing.T) {
	t.Parallel()
	all := Countries()
	if len(all) < 245 {
		t.Fatalf("got %d countries, want the full ISO 3166-1 list (249)", len(all))
	}
	code := regexp.MustCompile(`^[A-Z]{2}$`)
	dial := regexp.MustCompile(`^\+\d{1,4}$`)
	seen := map[string]string{}
	for _, c := range all {
		if !code.MatchString(c.Code) {
			t.Errorf("%q: code %q is not two capital letters", c.Name, c.Code)
		}
		if other, dup := seen[c.Code]; dup {
			t.Errorf("code %s used by both %q and %q", c.Code, other, c.Name)
		}
		seen[c.Code] = c.Name
		if !dial.MatchString(c.DialCode) {
			t.Errorf("%s %q: dial code %q does not match %s", c.Code, c.Name, c.DialCode, dial)
		}
		if strings.TrimSpace(c.Name) != c.Name || c.Name == "" || !utf8.ValidString(c.Name) {
			t.Errorf("%s: bad name %q", c.Code, c.Name)
		}
	}
}

func TestCountriesSortedByName(t *testing.T) {
	t.Parallel()
	all := Countries()
	if !slices.IsSortedFunc(all, func(a, b Country) int { return strings.Compare(sortKey(a.Name), sortKey(b.Name)) }) {
		t.Fatal("Countries() is not sorted by name")
	}
	if all[0].Code != "AF" || all[1].Code != "AX" {
		t.Errorf("first entries %q, %q; want Afghanistan then Åland Islands (accents must not push it to the end)", all[0].Name, all[1].Name)
	}
}

func TestSpotChecks(t *testing.T) {
	t.Parallel()
	for _, want := range []Country{
		{"United Kingdom", "GB", "+44"},
		{"United States", "US", "+1"},
		{"Germany", "DE", "+49"},
		{"Nigeria", "NG", "+234"},
		{"India", "IN", "+91"},
		{"South Korea", "KR", "+82"},
		{"Jersey", "JE", "+44"},
		{"Kazakhstan", "KZ", "+7"},
		{"Côte d'Ivoire", "CI", "+225"},
	} {
		got, ok := Lookup(want.Code)
		if !ok || got != want {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v", want.Code, got, ok, want)
		}
	}
	if got, ok := Lookup(" gb "); !ok || got.Code != "GB" {
		t.Errorf("Lookup is not case- and space-insensitive: %+v, %v", got, ok)
	}
	for _, bad := range []string{"", "XX", "UK", "GBR"} {
		if c, ok := Lookup(bad); ok {
			t.Errorf("Lookup(%q) found %+v", bad, c)
		}
	}
}

func TestCountriesReturnsACopy(t *testing.T) {
	t.Parallel()
	a := Countries()
	a[0].Name = "changed"
	if Countries()[0].Name == "changed" {
		t.Fatal("Countries() exposes the package's own slice")
	}
}
