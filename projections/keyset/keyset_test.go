package keyset_test

import (
	"errors"
	"testing"
	"time"

	"clearvest/projections/keyset"
)

func TestCursorRoundTrip(t *testing.T) {
	c := keyset.Cursor{At: time.Date(2026, 6, 1, 12, 0, 0, 123456000, time.UTC), ID: "DEP-AB|CD"}
	got, ok, err := keyset.Decode(c.Encode())
	if err != nil || !ok || !got.At.Equal(c.At) || got.ID != c.ID {
		t.Fatalf("round trip: %+v %v %v", got, ok, err)
	}
	if _, ok, err := keyset.Decode(""); ok || err != nil {
		t.Fatalf("empty cursor: %v %v", ok, err)
	}
	for _, bad := range []string{"!!", "bm90IGEgY3Vyc29y", "MjAyNi0wNi0wMVQxMjowMDowMFp8"} {
		if _, _, err := keyset.Decode(bad); !errors.Is(err, keyset.ErrBadCursor) {
			t.Errorf("%q: %v, want ErrBadCursor", bad, err)
		}
	}
}

func TestLimit(t *testing.T) {
	n := func(i int) *int { return &i }
	if l, err := keyset.Limit(nil); l != 50 || err != nil {
		t.Fatalf("default: %d %v", l, err)
	}
	if l, err := keyset.Limit(n(100)); l != 100 || err != nil {
		t.Fatalf("100: %d %v", l, err)
	}
	for _, bad := range []int{0, -1, 101} {
		if _, err := keyset.Limit(n(bad)); !errors.Is(err, keyset.ErrBadLimit) {
			t.Errorf("%d: %v", bad, err)
		}
	}
}
