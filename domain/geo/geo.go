// Package geo holds the ISO 3166-1 country list with international dialling codes, for the
// country picker, for validating the country a user gives, and for prefixing phone numbers.
//
// The list is data, not code: countries.json is embedded so that a change of name or code is a
// one-line diff a reviewer can check against the standard. Names are the ISO English short
// names, except where the standard's form ("Korea, Republic of") is not what people look for in
// a picker, where the common name ("South Korea") is used. Territories that share a numbering
// plan carry the shared code ("+1" for Jamaica, "+44" for Jersey): the code is what a phone
// number starts with, not a unique key.
package geo

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Country is one ISO 3166-1 entry. The JSON names match the API's Country (name, code).
type Country struct {
	Name     string `json:"name"`
	Code     string `json:"code"`     // alpha-2, upper case
	DialCode string `json:"dialCode"` // "+" and 1–4 digits
}

//go:embed countries.json
var countriesJSON []byte

var (
	countries []Country
	byCode    map[string]Country
)

func init() {
	if err := json.Unmarshal(countriesJSON, &countries); err != nil {
		panic(fmt.Sprintf("geo: countries.json: %v", err))
	}
	// Sorted here rather than trusted from the file, so an entry added at the end still shows
	// up in its place in the picker.
	slices.SortStableFunc(countries, func(a, b Country) int {
		return strings.Compare(sortKey(a.Name), sortKey(b.Name))
	})
	byCode = make(map[string]Country, len(countries))
	for _, c := range countries {
		byCode[c.Code] = c
	}
}

// Countries returns every country sorted by name, as a fresh slice the caller may modify.
func Countries() []Country { return slices.Clone(countries) }

// Lookup finds a country by its alpha-2 code, in either case.
func Lookup(code string) (Country, bool) {
	c, ok := byCode[strings.ToUpper(strings.TrimSpace(code))]
	return c, ok
}

// foldAccents covers the accented letters that occur in the names, so that "Åland Islands"
// sorts among the A's and "Côte d'Ivoire" before "Croatia", as a reader expects.
var foldAccents = strings.NewReplacer(
	"Å", "A", "å", "a", "Ç", "C", "ç", "c", "É", "E", "é", "e", "è", "e",
	"ô", "o", "Ö", "O", "ö", "o", "Ü", "U", "ü", "u", "í", "i",
)

func sortKey(name string) string { return strings.ToLower(foldAccents.Replace(name)) }
