package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	books "clearvest/domain/ledger"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/ledger"
)

// ledgerVerifier is the money part of `events verify`. It replays every account.* event of the
// log itself, trusting no read model:
//
//   - every event's postings sum to zero, and so does the trial balance of the whole log;
//   - no user account (available, held, invested) is ever below zero after an event;
//   - each user's figures read from the postings equal a fresh replay of their account- stream
//     into the aggregate, after every event;
//   - the figures of the money read model (rm_ledger, until a dedicated money read model exists)
//     equal that replay as of the read model's checkpoint;
//   - every event is one the aggregate's rules would have raised from the state before it
//     (account.Replay): a history that adds up but that the rules forbid, such as a deposit
//     confirmed twice or staff deciding on their own account, is refused, naming the stream,
//     the version and the rule.
//
// The read in position order only notes the account streams; the replay reads them one at a
// time afterwards (streamVerifier), so one user's aggregate is in memory at a time, and what is
// kept for the whole run is per account (the balances of the trial balance) and per user, never
// per event. A user's postings touch only their own accounts and the platform's, whose sums do
// not depend on the order of the streams.
type ledgerVerifier struct {
	postings func(userID string, e aggregate.Event) []books.Posting

	balances map[books.Account]money.Money
	total    money.Money
	negative map[books.Account]bool
	users    map[string]*userStream
	cur      *replayedUser // the stream being replayed

	// The read model, read in one snapshot before the replay; model is nil when there is none.
	model     map[string]account.Balances
	modelAt   int64
	modelName string

	snapshots *snapshotCheck // nil: the snapshots are not checked
}

// userStream is what is kept of one user for the whole run.
type userStream struct {
	stream   eventstore.StreamID
	from     int64            // the lowest version the read in position order saw
	replayed account.Balances // the aggregate's figures once its stream was replayed
}

// replayedUser is the state of the stream being replayed.
type replayedUser struct {
	userID   string
	replay   *account.Replay
	agg      *account.Account  // replay's state
	version  int64             // the highest version seen
	figures  account.Balances  // summed from the postings
	asOf     *account.Balances // the aggregate's figures at the read model's checkpoint, once passed
	diverged bool              // books and aggregate disagreed once already (reported once)
	accounts []books.Account   // the user's own accounts the stream posted to
}

// newLedgerVerifier returns the money checks. With a pool, it first reads the ledger read
// model's figures and checkpoint in one snapshot, to compare them with the replay; a database
// where that read model has not been built yet is checked against the log alone.
func newLedgerVerifier(ctx context.Context, pool *pgxpool.Pool, codec *eventstore.Registry) (*ledgerVerifier, error) {
	v := &ledgerVerifier{
		postings: books.Postings,
		balances: map[books.Account]money.Money{},
		negative: map[books.Account]bool{},
		users:    map[string]*userStream{},
	}
	if pool == nil {
		return v, nil
	}
	err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if codec != nil {
			var err error
			if v.snapshots, err = newSnapshotCheck(ctx, tx, pool, codec); err != nil {
				return err
			}
		}
		var built bool
		if err := tx.QueryRow(ctx, `SELECT to_regclass('projection_checkpoints') IS NOT NULL
			AND to_regclass($1) IS NOT NULL`, projections.SchemaName(ledger.Name)+".figures").Scan(&built); err != nil || !built {
			return err
		}
		err := tx.QueryRow(ctx, `SELECT position FROM projection_checkpoints WHERE name = $1`, ledger.Name).Scan(&v.modelAt)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		v.model, err = ledger.AllFigures(ctx, tx)
		v.modelName = projections.SchemaName(ledger.Name)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("events verify: reading the ledger read model: %w", err)
	}
	return v, nil
}

func (*ledgerVerifier) Name() string { return "ledger" }

// Observe notes the user's money stream, to be replayed by ObserveStream.
func (v *ledgerVerifier) Observe(env eventstore.Envelope, _ aggregate.Event) error {
	if env.StreamID.Category() != account.StreamCategory {
		return nil
	}
	userID := env.StreamID.ID()
	if u := v.users[userID]; u != nil {
		u.from = min(u.from, env.Version)
	} else {
		v.users[userID] = &userStream{stream: env.StreamID, from: env.Version}
	}
	return nil
}

// Rereads: the money streams, whose every event the replay reads again.
func (v *ledgerVerifier) Rereads(stream eventstore.StreamID) bool {
	return stream.Category() == account.StreamCategory
}

// Streams lists the money streams Observe saw, in the order of their names.
func (v *ledgerVerifier) Streams() []streamRead {
	ids := make([]string, 0, len(v.users))
	for id := range v.users {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	reads := make([]streamRead, len(ids))
	for i, id := range ids {
		u := v.users[id]
		reads[i] = streamRead{Stream: u.stream, FromVersion: u.from}
	}
	return reads
}

// replaying returns the replay of stream, starting it when stream is not the one replayed so far.
func (v *ledgerVerifier) replaying(stream eventstore.StreamID) *replayedUser {
	userID := stream.ID()
	if v.cur == nil || v.cur.userID != userID {
		r := account.NewReplay(userID)
		v.cur = &replayedUser{userID: userID, replay: r, agg: r.Account()}
	}
	return v.cur
}

// ObserveStream posts one money event and replays it into its user's aggregate.
func (v *ledgerVerifier) ObserveStream(env eventstore.Envelope, e aggregate.Event) error {
	if env.StreamID.Category() != account.StreamCategory {
		return nil
	}
	u := v.replaying(env.StreamID)
	userID := u.userID
	if v.model != nil && env.Position > v.modelAt && u.asOf == nil {
		at := u.agg.Balances()
		u.asOf = &at
	}

	var errs []error
	ps := v.postings(userID, e)
	if sum := books.Sum(ps); !sum.IsZero() {
		errs = append(errs, fmt.Errorf("the event's postings sum to %s, not zero (%s)", sum, describe(ps)))
	}
	for _, p := range ps {
		bal, seen := v.balances[p.Account]
		if id, _, isUser := p.Account.User(); !seen && isUser && id == userID {
			u.accounts = append(u.accounts, p.Account)
		}
		v.balances[p.Account] = bal.Add(p.Amount)
		v.total = v.total.Add(p.Amount)
	}
	for _, p := range ps {
		bal := v.balances[p.Account]
		if _, _, isUser := p.Account.User(); isUser && bal.IsNegative() && !v.negative[p.Account] {
			v.negative[p.Account] = true
			errs = append(errs, fmt.Errorf("account %s went below zero: %s after this event", p.Account, bal))
		}
	}
	u.figures = addBalances(u.figures, books.Figures(userID, ps))
	u.version = max(u.version, env.Version)
	if err := u.replay.Next(env.Version, e); err != nil {
		errs = append(errs, fmt.Errorf("stream %s %w", env.StreamID, err))
	}
	if err := v.snapshots.check(env.StreamID, env.Version, u.agg); err != nil {
		errs = append(errs, err)
	}
	if agg := u.agg.Balances(); !u.diverged && !agg.Equal(u.figures) {
		u.diverged = true
		errs = append(errs, fmt.Errorf("stream %s: the books and the aggregate disagree after this event: %s",
			env.StreamID, diffBalances("books", u.figures, "aggregate", agg)))
	}
	return errors.Join(errs...)
}

// EndStream checks what the stream's last event settles (a reinvestment it still owes) and
// compares the read model's figures for the user with the replay; then the aggregate is dropped.
func (v *ledgerVerifier) EndStream(stream eventstore.StreamID) error {
	if stream.Category() != account.StreamCategory {
		return nil
	}
	u := v.replaying(stream)
	v.cur = nil
	// Only this stream posts to the user's own accounts, and it has ended: their balances are
	// in the trial balance's total, and verify's memory stays the same however many users.
	for _, a := range u.accounts {
		delete(v.balances, a)
	}
	var errs []error
	if err := u.replay.Finish(u.version); err != nil {
		errs = append(errs, fmt.Errorf("stream %s %w", stream, err))
	}
	final := u.agg.Balances()
	if us := v.users[u.userID]; us != nil {
		us.replayed = final
	}
	if v.model == nil {
		return errors.Join(errs...)
	}
	want := final
	if u.asOf != nil {
		want = *u.asOf
	}
	got, ok := v.model[u.userID]
	delete(v.model, u.userID) // what is left at the end has no stream
	switch {
	case !ok && want.Equal(account.Balances{}):
	case !ok:
		errs = append(errs, fmt.Errorf("stream %s: %s has no figures for the user; the replay up to position %d says %s",
			stream, v.modelName, v.modelAt, diffBalances("replay", want, v.modelName, account.Balances{})))
	case !got.Equal(want):
		errs = append(errs, fmt.Errorf("stream %s: the figures in %s (as of position %d) differ from a replay of the stream: %s",
			stream, v.modelName, v.modelAt, diffBalances("expected", want, "found", got)))
	}
	return errors.Join(errs...)
}

// Finish checks the trial balance of the whole log (when it is off, the listing names the
// platform accounts: each user's own were checked, and dropped, with their stream) and that the
// read model holds no figures for a user without a money stream.
func (v *ledgerVerifier) Finish() error {
	var errs []error
	if !v.total.IsZero() {
		accounts := make([]books.Account, 0, len(v.balances))
		for a := range v.balances {
			accounts = append(accounts, a)
		}
		slices.Sort(accounts)
		var parts []string
		for _, a := range accounts {
			parts = append(parts, fmt.Sprintf("%s %s", a, v.balances[a]))
		}
		errs = append(errs, fmt.Errorf("the trial balance of all account events sums to %s, not zero (%s)", v.total, strings.Join(parts, ", ")))
	}
	var strays []string
	for id := range v.model {
		if _, ok := v.users[id]; !ok {
			strays = append(strays, id)
		}
	}
	slices.Sort(strays)
	for _, id := range strays {
		errs = append(errs, fmt.Errorf("%s holds figures for user %s, whose stream %s has no events", v.modelName, id, account.Stream(id)))
	}
	return errors.Join(errs...)
}

func addBalances(a, b account.Balances) account.Balances {
	return account.Balances{
		Available: a.Available.Add(b.Available), Held: a.Held.Add(b.Held), Invested: a.Invested.Add(b.Invested),
		Returns: a.Returns.Add(b.Returns), Fees: a.Fees.Add(b.Fees), Adjustments: a.Adjustments.Add(b.Adjustments),
		Referrals: a.Referrals.Add(b.Referrals),
	}
}

// diffBalances names the figures that differ: "available expected 12.00, found 10.00".
func diffBalances(wantName string, want account.Balances, gotName string, got account.Balances) string {
	var parts []string
	for _, f := range []struct {
		name   string
		w, got money.Money
	}{
		{"available", want.Available, got.Available}, {"held", want.Held, got.Held}, {"invested", want.Invested, got.Invested},
		{"returns", want.Returns, got.Returns}, {"fees", want.Fees, got.Fees}, {"adjustments", want.Adjustments, got.Adjustments},
		{"referrals", want.Referrals, got.Referrals},
	} {
		if !f.w.Equal(f.got) {
			parts = append(parts, fmt.Sprintf("%s %s %s, %s %s", f.name, wantName, f.w, gotName, f.got))
		}
	}
	return strings.Join(parts, "; ")
}

func describe(ps []books.Posting) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s %s", p.Account, p.Amount)
	}
	return strings.Join(parts, ", ")
}
