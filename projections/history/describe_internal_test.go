package history

import (
	"testing"

	"clearvest/domain/account"
)

// TestEveryMoneyEventIsDescribed fails when a money event is added without a history entry.
func TestEveryMoneyEventIsDescribed(t *testing.T) {
	for _, e := range account.Events() {
		en, ok := describe(e)
		if !ok {
			t.Errorf("%s has no history entry: add a case to describe", e.EventName())
			continue
		}
		if en.typ == "" || en.status == "" || en.title == "" {
			t.Errorf("%s: entry %+v lacks a type, status or title", e.EventName(), en)
		}
	}
}
