// Package keyset pages a staff queue by its sort key instead of an offset: a page starts after
// the last row of the page before, so an item added or decided while staff page through the
// queue never shifts a page and no item is shown twice or skipped. Queues sort oldest first by
// (time, id); the cursor carries both, opaque to the client.
//
// A queue's read model describes its page query (Query) and reads it with Fetch; the service
// answers a client's cursor and page size with Read.
package keyset

import (
	"clearvest/platform/pgread"
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

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

// Page is one page of a queue: its items, how many wait in all, and the cursor of the next
// page ("" on the last).
type Page[T any] struct {
	Items      []T
	Total      int
	NextCursor string
}

// Read answers a client's request for a page of a queue: cursor as the client sent it ("" from
// the start) and limit (nil: DefaultLimit). read reads up to n items after the cursor (nil: from
// the start), as Fetch does; key is an item's sort key, from which the next page's cursor is made.
func Read[T any](cursor string, limit *int, read func(after *Cursor, n int) (list []T, total int, more bool, err error), key func(T) Cursor) (Page[T], error) {
	n, err := Limit(limit)
	if err != nil {
		return Page[T]{}, err
	}
	c, ok, err := Decode(cursor)
	if err != nil {
		return Page[T]{}, err
	}
	var after *Cursor
	if ok {
		after = &c
	}
	list, total, more, err := read(after, n)
	if err != nil {
		return Page[T]{}, err
	}
	p := Page[T]{Items: list, Total: total}
	if more && len(list) > 0 {
		p.NextCursor = key(list[len(list)-1]).Encode()
	}
	return p, nil
}

// Query is a queue's page query. Select (the item's columns) and From (FROM and joins) read
// the items; Where picks the ones waiting; At and ID are the columns of the sort key, a
// timestamptz and a text; Count is a statement of its own counting the items waiting. Where and
// Count may use the arguments given to Fetch as $4, $5, ... (a user's id, for a list of one
// person's items). NewestFirst pages from the newest item back (a history) instead of from the
// oldest (a queue).
type Query struct {
	Select, From, Where, At, ID, Count string
	NewestFirst                        bool
}

// Fetch reads up to limit items of the queue after the cursor (from the start when after is
// nil), oldest first, with how many wait in all, counted in the same statement so the two agree;
// more reports whether another page follows. scan reads the Select columns and then the count
// into total.
func Fetch[T any](ctx context.Context, pool pgread.Querier, q Query, after *Cursor, limit int, scan func(row pgx.CollectableRow, total *int) (T, error), args ...any) (list []T, total int, more bool, err error) {
	var at any
	id := ""
	if after != nil {
		at, id = after.At, after.ID
	}
	cmp, order := ">", ""
	if q.NewestFirst {
		cmp, order = "<", " DESC"
	}
	// One row more than the page says whether another page follows.
	all := append([]any{at, id, limit + 1}, args...)
	rows, err := pool.Query(ctx, `SELECT `+q.Select+`, (`+q.Count+`) `+q.From+` WHERE (`+q.Where+`)
		AND ($1::timestamptz IS NULL OR (`+q.At+`, `+q.ID+`) `+cmp+` ($1::timestamptz, $2::text))
		ORDER BY `+q.At+order+`, `+q.ID+order+` LIMIT $3`, all...)
	if err != nil {
		return nil, 0, false, fmt.Errorf("page: %w", err)
	}
	list, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (T, error) { return scan(row, &total) })
	if err != nil {
		return nil, 0, false, fmt.Errorf("page: %w", err)
	}
	if len(list) == 0 && after != nil {
		// Past the last item no row carries the count; it still answers.
		// The page's arguments keep their numbers, so the count's $4... mean what they did.
		if err := pool.QueryRow(ctx, `SELECT (`+q.Count+`) FROM (SELECT $1::timestamptz, $2::text, $3::int) AS page`,
			all...).Scan(&total); err != nil {
			return nil, 0, false, fmt.Errorf("page count: %w", err)
		}
	}
	if len(list) > limit {
		return list[:limit], total, true, nil
	}
	return list, total, false, nil
}
