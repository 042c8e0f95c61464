// Package audit answers the admins' audit screens: the log of staff actions (from the audit read
// model), the raw event browser (from the store), and the books at a chosen log position, folded
// from the log itself with the double-entry rules of domain/ledger (docs/auditing.md).
package audit

import (
	"clearvest/platform/pgread"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/account"
	"clearvest/domain/domainerr"
	"clearvest/domain/ledger"
	"clearvest/domain/money"
	"clearvest/eventstore"
	rmaudit "clearvest/projections/audit"
)

// Deps are what the service reads: the read models, the log, and the codec that decodes money
// events and opens staff members' client addresses.
type Deps struct {
	Pool  *pgxpool.Pool
	Store eventstore.Store
	Codec *eventstore.Registry
}

// Service answers the audit screens. It only reads.
type Service struct {
	pool  *pgxpool.Pool
	store eventstore.Store
	codec *eventstore.Registry
}

// New returns the service.
func New(d Deps) (*Service, error) {
	if d.Pool == nil || d.Store == nil || d.Codec == nil {
		return nil, errors.New("audit: pool, store and codec are required")
	}
	return &Service{pool: d.Pool, store: d.Store, codec: d.Codec}, nil
}

// Errors of bad input.
var (
	ErrBadCursor   = domainerr.Field("before", "This page of the audit log cannot be found. Please reload it from the start.")
	ErrBadLimit    = domainerr.Field("limit", "A page holds from 1 to 500 entries.")
	ErrBadStream   = domainerr.Field("stream", "A stream id reads <category>-<id>, for example account-0191f3….")
	ErrBadAfter    = domainerr.Field("after", "after must be zero or more.")
	ErrBadPosition = domainerr.Field("position", "The position must be zero or more.")
	ErrBadPeriod   = domainerr.Field("to", "The end of the period must come after its start.")
)

// LogEntry is one staff action as the audit log shows it.
type LogEntry struct {
	rmaudit.Entry
	Summary string
}

// LogPage is a page of the log, newest first; Next is the cursor of the following page ("" at
// the end).
type LogPage struct {
	Entries []LogEntry
	Next    string
}

// Log reads a page of staff actions. The client addresses are opened: they are the staff
// members' own, the audit trail's record of where a decision came from.
func (s *Service) Log(ctx context.Context, f rmaudit.Filter, cursor string) (LogPage, error) {
	if f.Limit < 0 || f.Limit > rmaudit.MaxLimit {
		return LogPage{}, ErrBadLimit
	}
	if cursor != "" {
		before, err := strconv.ParseInt(cursor, 10, 64)
		if err != nil || before <= 0 {
			return LogPage{}, ErrBadCursor
		}
		f.Before = before
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.To.After(f.From) {
		return LogPage{}, ErrBadPeriod
	}
	list, more, err := rmaudit.Log(ctx, pgread.On(ctx, s.pool), f)
	if err != nil {
		return LogPage{}, err
	}
	page := LogPage{Entries: make([]LogEntry, 0, len(list))}
	for _, e := range list {
		ip, err := s.openAddress(e)
		if err != nil {
			return LogPage{}, err
		}
		e.ClientIP = ip
		page.Entries = append(page.Entries, LogEntry{Entry: e, Summary: rmaudit.Describe(e.Kind, e.Reference)})
	}
	if more && len(list) > 0 {
		page.Next = fmt.Sprint(list[len(list)-1].Position)
	}
	return page, nil
}

// openAddress opens an entry's stored client address for the person who sent the request.
func (s *Service) openAddress(e rmaudit.Entry) (string, error) {
	if e.ClientIP == "" {
		return "", nil
	}
	meta := eventstore.Metadata{ActorID: e.ActorID, ClientIP: e.ClientIP}
	if e.ImpersonatorID != "" {
		meta.ImpersonatorID = e.ImpersonatorID
	}
	m, err := s.codec.OpenMetadata(eventstore.Envelope{StreamID: eventstore.StreamID(e.StreamID), Metadata: meta})
	if err != nil {
		return "", err
	}
	return m.ClientIP, nil
}

// Kinds lists the kinds of staff action the log holds.
func (s *Service) Kinds(ctx context.Context) ([]string, error) {
	return rmaudit.Kinds(ctx, pgread.On(ctx, s.pool))
}

// ---- the event browser ----

// Event is a stored event as the browser shows it: the payload and metadata exactly as stored,
// personal data sealed (a "pii:v1:…" string) as the log keeps it.
type Event struct {
	Position      int64
	ID            string
	StreamID      string
	Version       int64
	Type          string
	SchemaVersion int
	RecordedAt    time.Time
	Data          json.RawMessage
	Metadata      eventstore.Metadata
}

// EventPage is a page of events; Next is the cursor to ask for the following page (a position,
// or with a stream a version), 0 at the end.
type EventPage struct {
	Events []Event
	Next   int64
}

// scanLimit bounds how many events one request reads while looking for events of a type.
const scanLimit = 2000

// Events reads a page of the log: one stream after a version, or the whole log after a
// position, optionally only events of one type.
func (s *Service) Events(ctx context.Context, stream, typ string, after int64, limit int) (EventPage, error) {
	if after < 0 {
		return EventPage{}, ErrBadAfter
	}
	if limit == 0 {
		limit = 50
	}
	if limit < 1 || limit > 200 {
		return EventPage{}, domainerr.Field("limit", "A page holds from 1 to 200 events.")
	}
	sid := eventstore.StreamID(strings.TrimSpace(stream))
	if sid != "" && sid.Validate() != nil {
		return EventPage{}, ErrBadStream
	}
	var out EventPage
	cursor, scanned := after, 0
	for scanned < scanLimit {
		var page []eventstore.Envelope
		var err error
		if sid != "" {
			page, err = s.store.ReadStream(ctx, sid, cursor+1, 200)
		} else {
			page, err = s.store.ReadAll(ctx, cursor, 200)
		}
		if err != nil {
			return EventPage{}, err
		}
		for _, env := range page {
			scanned++
			if sid != "" {
				cursor = env.Version
			} else {
				cursor = env.Position
			}
			if typ != "" && env.Type != typ {
				continue
			}
			out.Events = append(out.Events, Event{Position: env.Position, ID: env.ID.String(), StreamID: string(env.StreamID),
				Version: env.Version, Type: env.Type, SchemaVersion: env.SchemaVersion, RecordedAt: env.RecordedAt.UTC(),
				Data: env.Data, Metadata: env.Metadata})
			if len(out.Events) == limit {
				out.Next = cursor
				return out, nil
			}
		}
		if len(page) < 200 {
			return out, nil
		}
	}
	out.Next = cursor
	return out, nil
}

// ---- the books ----

// AccountBalance is one account of the trial balance: a balance above zero is a credit (what
// the platform owes, or has earned), below zero a debit.
type AccountBalance struct {
	Account ledger.Account
	User    string // the owner of a user account, "" for a platform account
	Book    string // available, held, invested; "" for a platform account
	Balance money.Money
}

// Debit is the account's balance on the debit side (zero for a credit balance).
func (a AccountBalance) Debit() money.Money {
	if a.Balance.IsNegative() {
		return a.Balance.Neg()
	}
	return money.Zero
}

// Credit is the account's balance on the credit side (zero for a debit balance).
func (a AccountBalance) Credit() money.Money {
	if a.Balance.IsNegative() {
		return money.Zero
	}
	return a.Balance
}

// Reconciliation is the identity the books must keep: deposits received − payouts sent =
// investor liabilities + platform equity. Difference is the left side less the right; it is
// zero in balanced books.
type Reconciliation struct {
	DepositsReceived    money.Money
	PayoutsSent         money.Money
	InvestorLiabilities money.Money
	PlatformEquity      money.Money
	Difference          money.Money
}

// Books are the books at a log position.
type Books struct {
	Position    int64 // the position folded up to (the head when none was asked)
	Head        int64 // the log's head when they were read
	Events      int   // money events folded
	Accounts    []AccountBalance
	TotalDebit  money.Money
	TotalCredit money.Money
	Balanced    bool
	// Unbalanced lists the positions of events whose postings did not sum to zero.
	Unbalanced []int64
	// WentNegative lists the user accounts that went below zero after some event.
	WentNegative   []ledger.Account
	Reconciliation Reconciliation
	// Users sums the users' own accounts by book: available, held, invested.
	Users map[string]money.Money
}

// foldPage is how many events one read of the log brings; the fold keeps only the balances.
const foldPage = 1000

// BooksAt folds every money event of the log up to position (0: the head) into the trial
// balance with ledger.Postings, reading the log a page at a time.
func (s *Service) BooksAt(ctx context.Context, position int64) (Books, error) {
	if position < 0 {
		return Books{}, ErrBadPosition
	}
	head, err := s.store.Head(ctx)
	if err != nil {
		return Books{}, err
	}
	if position == 0 || position > head {
		position = head
	}
	tb := ledger.NewTrialBalance()
	var positions []int64 // of the sets posted, to name unbalanced ones
	events := 0
	after := int64(0)
fold:
	for {
		page, err := s.store.ReadAll(ctx, after, foldPage)
		if err != nil {
			return Books{}, err
		}
		for _, env := range page {
			if env.Position > position {
				break fold
			}
			after = env.Position
			if env.StreamID.Category() != account.StreamCategory {
				continue
			}
			e, err := s.codec.Decode(env)
			if err != nil {
				return Books{}, err
			}
			ps := ledger.Postings(env.StreamID.ID(), e)
			if len(ps) == 0 {
				continue
			}
			tb.Post(ps)
			if !ledger.Sum(ps).IsZero() {
				positions = append(positions, env.Position)
			}
			events++
		}
		if len(page) < foldPage {
			break
		}
	}
	b := Books{Position: position, Head: head, Events: events, Balanced: tb.Balanced(), Unbalanced: positions,
		WentNegative: tb.WentNegative(), Users: map[string]money.Money{
			ledger.BookAvailable: money.Zero, ledger.BookHeld: money.Zero, ledger.BookInvested: money.Zero,
		}}
	if b.Unbalanced == nil {
		b.Unbalanced = []int64{}
	}
	if b.WentNegative == nil {
		b.WentNegative = []ledger.Account{}
	}
	r := Reconciliation{}
	platform := func(a ledger.Account, bal money.Money) {
		b.Accounts = append(b.Accounts, AccountBalance{Account: a, Balance: bal})
		switch a {
		case ledger.Custody:
			r.DepositsReceived = bal.Neg()
		case ledger.Payouts:
			r.PayoutsSent = bal
		default:
			r.PlatformEquity = r.PlatformEquity.Add(bal)
		}
	}
	// The platform's accounts first, each even before anything was posted to it.
	for _, a := range ledger.PlatformAccounts {
		platform(a, tb.Balance(a))
	}
	for _, a := range tb.Accounts() {
		bal := tb.Balance(a)
		user, book, ok := a.User()
		if !ok {
			if !slices.Contains(ledger.PlatformAccounts, a) {
				platform(a, bal)
			}
			continue
		}
		b.Accounts = append(b.Accounts, AccountBalance{Account: a, User: user, Book: book, Balance: bal})
		r.InvestorLiabilities = r.InvestorLiabilities.Add(bal)
		b.Users[book] = b.Users[book].Add(bal)
	}
	for _, a := range b.Accounts {
		b.TotalDebit = b.TotalDebit.Add(a.Debit())
		b.TotalCredit = b.TotalCredit.Add(a.Credit())
	}
	r.Difference = r.DepositsReceived.Sub(r.PayoutsSent).Sub(r.InvestorLiabilities.Add(r.PlatformEquity))
	b.Reconciliation = r
	return b, nil
}
