// Package keyset pages a staff queue by its sort key instead of an offset: a page starts after
// the last row of the page before, so an item added or decided while staff page through the
// queue never shifts a page and no item is shown twice or skipped. Queues sort oldest first by
// (time, id); the cursor carries both, opaque to the client.
package keyset

import (
	"encoding/base64"
	"strings"
	"time"

	"clearvest/domain/domainerr"
)

// Page sizes: DefaultLimit when the client asks none, at most MaxLimit.
const (
	DefaultLimit = 50
	MaxLimit     = 100
)

// ErrBadCursor refuses a cursor this server did not make.
var ErrBadCursor = domainerr.New(domainerr.Invalid, "This page of the queue cannot be found. Please reload the queue from the start.")

// ErrBadLimit refuses a page size outside 1..MaxLimit.
var ErrBadLimit = domainerr.New(domainerr.Invalid, "A page holds from 1 to 100 items.")

// Cursor is the sort key of the last item of a page.
type Cursor struct {
	At time.Time
	ID string
}

// Encode makes the cursor the client sends back for the next page.
func (c Cursor) Encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.At.UTC().Format(time.RFC3339Nano) + "|" + c.ID))
}

// Decode reads a cursor; "" is the start of the queue (ok false).
func Decode(s string) (c Cursor, ok bool, err error) {
	if s == "" {
		return Cursor{}, false, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, false, ErrBadCursor
	}
	at, id, found := strings.Cut(string(raw), "|")
	if !found || id == "" {
		return Cursor{}, false, ErrBadCursor
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return Cursor{}, false, ErrBadCursor
	}
	return Cursor{At: t, ID: id}, true, nil
}

// Limit checks a requested page size; nil means DefaultLimit.
func Limit(n *int) (int, error) {
	if n == nil {
		return DefaultLimit, nil
	}
	if *n < 1 || *n > MaxLimit {
		return 0, ErrBadLimit
	}
	return *n, nil
}
