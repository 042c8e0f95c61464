package money

import (
	"clearvest/platform/pgread"
	"context"
	"errors"
	"time"

	"clearvest/domain/domainerr"
	"clearvest/projections/history"
	"clearvest/projections/keyset"
)

// Errors of the history queries.
var (
	ErrPeriodReversed = domainerr.Field("from", "The start date must be on or before the end date.")
	// ErrShuttingDown refuses a new event stream while the server stops; the browser retries.
	ErrShuttingDown = errors.New("money: the server is shutting down")
)

// Day is a UTC calendar day as the statement takes it; nil means open.
type Day = *time.Time

// Movements is the caller's history: every movement still waiting for staff, and one page of
// the settled ones.
type Movements struct {
	Pending []history.Movement
	Settled keyset.Page[history.Movement]
}

// History returns the caller's pending movements and the page of settled ones after cursor
// ("" from the newest), limit per page (nil: 20). It reads the history read model
// (read-your-writes applies).
func (s *Service) History(ctx context.Context, a Actor, cursor string, limit *int) (Movements, error) {
	if limit == nil {
		n := historyPage
		limit = &n
	}
	page, err := keyset.Read(cursor, limit, func(after *keyset.Cursor, n int) ([]history.Movement, int, bool, error) {
		return history.SettledMovements(ctx, pgread.On(ctx, s.pool), a.UserID, after, n)
	}, history.SettledKey)
	if err != nil {
		return Movements{}, err
	}
	pending, err := history.PendingMovements(ctx, pgread.On(ctx, s.pool), a.UserID)
	if err != nil {
		return Movements{}, err
	}
	return Movements{Pending: pending, Settled: page}, nil
}

// historyPage is the history's page size when the client asks none.
const historyPage = 20

// Statement is a period of the caller's history with the days it covers.
type Statement struct {
	history.Statement
	From Day // nil: from the first item
	To   time.Time
}

// Statement reads the caller's statement for a period; without an end it ends today (by the
// application's clock).
func (s *Service) Statement(ctx context.Context, a Actor, from, to Day) (Statement, error) {
	end := day(s.clock.Now())
	if to != nil {
		end = day(*to)
	}
	start, until, err := period(from, &end)
	if err != nil {
		return Statement{}, err
	}
	st, err := history.StatementOf(ctx, pgread.On(ctx, s.pool), a.UserID, start, until)
	if err != nil {
		return Statement{}, err
	}
	out := Statement{Statement: st, To: end}
	if from != nil {
		f := day(*from)
		out.From = &f
	}
	return out, nil
}

// Dashboard is what the dashboard charts and its pending panel show.
type Dashboard struct {
	Balance []history.Point
	Returns []history.MonthReturn
	Pending []history.Item
}

// Dashboard reads the caller's chart series and pending requests.
func (s *Service) Dashboard(ctx context.Context, a Actor) (Dashboard, error) {
	var d Dashboard
	var err error
	if d.Balance, err = history.DailyBalances(ctx, pgread.On(ctx, s.pool), a.UserID); err != nil {
		return d, err
	}
	if d.Returns, err = history.MonthlyReturns(ctx, pgread.On(ctx, s.pool), a.UserID); err != nil {
		return d, err
	}
	d.Pending, err = history.Pending(ctx, pgread.On(ctx, s.pool), a.UserID)
	return d, err
}

// Changes returns a channel that receives the newest item's position whenever new items land
// in the caller's history, and the function that stops it.
// The channel closes when CloseChanges is called.
func (s *Service) Changes(ctx context.Context, a Actor) (<-chan int64, func(), error) {
	c, stop, err := s.feed.Subscribe(ctx, a.UserID)
	if errors.Is(err, history.ErrFeedClosed) {
		return nil, nil, ErrShuttingDown
	}
	return c, stop, err
}

// CloseChanges ends every subscription; the server calls it when it starts shutting down.
func (s *Service) CloseChanges() { s.feed.Close() }

func day(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// period turns two included days into the half-open range [from, until).
func period(from, to Day) (start, until time.Time, err error) {
	if from != nil {
		start = day(*from)
	}
	if to != nil {
		until = day(*to).AddDate(0, 0, 1)
	}
	if from != nil && to != nil && !start.Before(until) {
		return start, until, ErrPeriodReversed
	}
	return start, until, nil
}
