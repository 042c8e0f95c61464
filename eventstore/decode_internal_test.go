package eventstore

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	"clearvest/domain/broadcast"
	"clearvest/domain/chain"
	"clearvest/domain/identity"
	"clearvest/domain/kyc"
	"clearvest/domain/plan"
	"clearvest/domain/proposal"
	"clearvest/domain/settings"
	"clearvest/domain/support"
	"clearvest/domain/testimonial"
)

// storedTypes is every event type the platform stores.
func storedTypes() []reflect.Type {
	var types []reflect.Type
	for _, events := range [][]aggregate.Event{
		account.Events(), broadcast.Events(), chain.Events(), identity.Events(), kyc.Events(),
		plan.Events(), proposal.Events(), settings.Events(), support.Events(), testimonial.Events(),
	} {
		for _, e := range events {
			types = append(types, reflect.TypeOf(e))
		}
	}
	return types
}

// FuzzDecodeJSONMatchesEncodingJSON holds decodeJSON to encoding/json on every stored event
// type: valid JSON (what a jsonb column holds) decodes to the same value, or fails with both.
func FuzzDecodeJSONMatchesEncodingJSON(f *testing.F) {
	types := storedTypes()
	names := jsonNames(types)
	for i, t := range types {
		zero, err := json.Marshal(reflect.New(t).Interface())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint16(i), zero)
	}
	for _, seed := range []string{
		`{"at": "2025-01-19T14:00:00Z", "asset": "USDT", "amount": "168.70", "address": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "network": "TRC20", "usdRate": "1", "depositId": "01a226ea-1d04-7ef1-a5b1-1272e6f0901d", "onChainAmount": "168.700000", "transactionId": "DEP-0000-0000"}`,
		`{"at": "2025-01-24T07:00:00Z", "terms": {"max": "20000.00", "min": "100.00", "planId": "growth", "planName": "Growth", "termDays": 90, "termRate": "0.05", "planVersion": 1}, "amount": "2155.00", "investmentId": "01a226ea-1d05-702c-b4b1-a4e10d9b5a84"}`,
		`{"AMOUNT": 12.5, "amount": null, "at": "2025-01-19T14:00:00+02:00", "termDays": 1e2}`,
		`{"amount": "1\u0030", "extra": [1, {"a": []}], "staffId": ""}`,
	} {
		for i := range types {
			f.Add(uint16(i), []byte(seed))
		}
	}
	f.Fuzz(func(t *testing.T, index uint16, data []byte) {
		if !json.Valid(data) || !utf8.Valid(data) {
			return // a jsonb column holds only valid JSON, in UTF-8
		}
		if hasFoldedKey(data, names) {
			// encoding/json also takes a key in another case ("AT" for "at"); goccy/go-json does
			// not, inside embedded structs. Stored events carry the names their encoder wrote.
			return
		}
		typ := types[int(index)%len(types)]
		want, got := reflect.New(typ), reflect.New(typ)
		wantErr := json.Unmarshal(data, want.Interface())
		gotErr := decodeJSON(data, got.Interface())
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%s from %s: encoding/json says %v, decodeJSON says %v", typ, data, wantErr, gotErr)
		}
		if wantErr != nil {
			return
		}
		wantJSON, err := json.Marshal(want.Interface())
		if err != nil {
			t.Fatal(err)
		}
		gotJSON, err := json.Marshal(got.Interface())
		if err != nil {
			t.Fatal(err)
		}
		if string(wantJSON) != string(gotJSON) {
			t.Fatalf("%s from %s:\nencoding/json: %s\ndecodeJSON:    %s", typ, data, wantJSON, gotJSON)
		}
	})
}

// jsonNames is the set of field names, as written in JSON, of types and of the structs in them.
func jsonNames(types []reflect.Type) map[string]bool {
	names := map[string]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || names["\x00"+t.String()] {
			return
		}
		names["\x00"+t.String()] = true // seen
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			names[name] = true
			walk(f.Type)
		}
	}
	for _, t := range types {
		walk(t)
	}
	return names
}

// hasFoldedKey reports whether an object in data has a key that is not one of names but matches
// one when case is ignored.
func hasFoldedKey(data []byte, names map[string]bool) bool {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return false
	}
	var folded func(v any) bool
	folded = func(v any) bool {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if !names[k] {
					for n := range names {
						if strings.EqualFold(k, n) {
							return true
						}
					}
				}
				if folded(e) {
					return true
				}
			}
		case []any:
			for _, e := range v {
				if folded(e) {
					return true
				}
			}
		}
		return false
	}
	return folded(v)
}
