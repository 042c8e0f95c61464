package payout_test

import (
	"errors"
	"strings"
	"testing"

	"clearvest/domain/payout"
)

const (
	hashLower = "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b"
	hashUpper = "4A5E1E4BAAB89F3A32518A88C31BC87F618F76673E2CC77AB2127B7AFDEDA33B"
)

// Every way wallets and explorers write one hash has one canonical form per network: this is
// what makes "one transfer, one credit" hold.
func TestCanonicalTxHashOneFormPerNetwork(t *testing.T) {
	t.Parallel()
	variants := []string{
		hashLower, hashUpper, "0x" + hashLower, "0X" + hashUpper, "0x" + hashUpper[:10] + hashLower[10:],
		"  " + hashLower + "\n", "\t0x" + hashLower + " \r\n",
	}
	want := map[payout.Network]string{
		payout.Bitcoin:  hashLower,
		payout.Tron:     hashLower,
		payout.Ethereum: "0x" + hashLower,
	}
	for network, canonical := range want {
		for _, v := range variants {
			got, err := payout.CanonicalTxHash(network, v)
			if err != nil || got != canonical {
				t.Errorf("CanonicalTxHash(%s, %q) = %q, %v; want %q", network, v, got, err, canonical)
			}
		}
	}
}

func TestCanonicalTxHashRefuses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, in string
		hidden   bool
	}{
		{"empty", "", false},
		{"63 digits", hashLower[:63], false},
		{"65 digits", hashLower + "a", false},
		{"prefix only", "0x", false},
		{"not hex", "g" + hashLower[1:], false},
		{"double prefix", "0x0x" + hashLower[4:], false},
		{"other prefix", "0b" + hashLower, false},
		{"zero-width space inside", hashLower[:32] + "\u200b" + hashLower[32:], true},
		{"zero-width space after", hashLower + "\u200b", true},
		{"byte order mark before", "\ufeff" + hashLower, true},
		{"bidi override", "\u202e" + hashLower, true},
		{"space inside", hashLower[:32] + " " + hashLower[32:], true},
		{"line break inside", hashLower[:32] + "\n" + hashLower[32:], true},
		{"NUL", hashLower + "\x00", true},
		{"full-width digit", "\uff14" + hashLower[1:], true},
		{"invalid UTF-8", hashLower[:63] + "\xff", true},
	} {
		for _, n := range payout.Networks() {
			got, err := payout.CanonicalTxHash(n, tt.in)
			if !errors.Is(err, payout.ErrInvalidTxHash) || got != "" {
				t.Errorf("%s on %s: CanonicalTxHash(%q) = %q, %v; want ErrInvalidTxHash", tt.name, n, tt.in, got, err)
				continue
			}
			if hidden := strings.Contains(err.Error(), "invisible"); hidden != tt.hidden {
				t.Errorf("%s on %s: message %q, want one about invisible characters: %v", tt.name, n, err, tt.hidden)
			}
		}
	}
	if _, err := payout.CanonicalTxHash("BEP20", hashLower); !errors.Is(err, payout.ErrUnknownNetwork) {
		t.Errorf("unknown network: %v", err)
	}
}

// FuzzCanonicalTxHash: whatever comes in, a hash that is accepted is canonical (accepting it
// again gives itself), and is 64 lower-case hex digits with "0x" only on Ethereum.
func FuzzCanonicalTxHash(f *testing.F) {
	for _, s := range []string{hashLower, "0x" + hashUpper, hashLower + "\u200b", "\ufeff0x" + hashLower, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, n := range payout.Networks() {
			got, err := payout.CanonicalTxHash(n, s)
			if err != nil {
				continue
			}
			again, err := payout.CanonicalTxHash(n, got)
			if err != nil || again != got {
				t.Fatalf("%s: %q canonical %q is not canonical again: %q, %v", n, s, got, again, err)
			}
			digits := strings.TrimPrefix(got, "0x")
			if (n == payout.Ethereum) != strings.HasPrefix(got, "0x") || len(digits) != 64 || strings.Trim(digits, "0123456789abcdef") != "" {
				t.Fatalf("%s: %q gave %q", n, s, got)
			}
		}
	})
}
