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

func TestRead(t *testing.T) {
	at := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	key := func(id string) keyset.Cursor { return keyset.Cursor{At: at, ID: id} }
	var gotAfter *keyset.Cursor
	var gotN int
	read := func(more bool) func(after *keyset.Cursor, n int) ([]string, int, bool, error) {
		return func(after *keyset.Cursor, n int) ([]string, int, bool, error) {
			gotAfter, gotN = after, n
			return []string{"a", "b"}, 7, more, nil
		}
	}
	p, err := keyset.Read("", nil, read(true), key)
	if err != nil || gotAfter != nil || gotN != keyset.DefaultLimit || p.Total != 7 || len(p.Items) != 2 || p.NextCursor != key("b").Encode() {
		t.Fatalf("first page: %+v %v (after %v, n %d)", p, err, gotAfter, gotN)
	}
	two := 2
	p, err = keyset.Read(p.NextCursor, &two, read(false), key)
	if err != nil || gotAfter == nil || gotAfter.ID != "b" || !gotAfter.At.Equal(at) || gotN != 2 || p.NextCursor != "" {
		t.Fatalf("last page: %+v %v (after %v, n %d)", p, err, gotAfter, gotN)
	}
	zero := 0
	if _, err := keyset.Read("", &zero, read(false), key); !errors.Is(err, keyset.ErrBadLimit) {
		t.Errorf("limit 0: %v", err)
	}
	if _, err := keyset.Read("not-a-cursor", nil, read(false), key); !errors.Is(err, keyset.ErrBadCursor) {
		t.Errorf("bad cursor: %v", err)
	}
}
