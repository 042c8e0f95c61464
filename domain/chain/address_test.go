package chain_test

import (
	"testing"
	"time"

	"clearvest/domain/chain"
)

func TestAnInvestorKeepsTheFirstAddressGiven(t *testing.T) {
	s := chain.NewAddressState()
	if _, ok := s.Assigned(); ok {
		t.Fatal("a new state has an address")
	}
	first := chain.AddressAssigned{Network: "BTC", UserID: "u1", Index: 7, Address: "bc1qfirst", At: time.Date(2026, 11, 28, 12, 0, 0, 0, time.FixedZone("x", 3600))}
	if !s.Assign(first) {
		t.Fatal("the first assignment raised nothing")
	}
	if s.Assign(chain.AddressAssigned{Network: "BTC", UserID: "u1", Index: 8, Address: "bc1qsecond"}) {
		t.Fatal("a second assignment was raised")
	}
	got, ok := s.Assigned()
	if !ok || got.Index != 7 || got.Address != "bc1qfirst" || got.At.Location() != time.UTC {
		t.Fatalf("assigned %+v, want index 7 at bc1qfirst in UTC", got)
	}
	if evs := s.Changes(); len(evs) != 1 {
		t.Fatalf("%d events raised, want 1", len(evs))
	}
	if chain.AddressStream("BTC", "u1") != "chainaddress-BTC.u1" {
		t.Fatalf("stream %q", chain.AddressStream("BTC", "u1"))
	}
}
