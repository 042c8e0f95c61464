package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

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
// time afterwards (streamVerifier), in the order of their users' ids, so one user's aggregate is
// in memory at a time. The read model's figures are read in the same order through a cursor
// and compared as each stream ends, and each user's balances are dropped with their stream: what
// is kept for the whole run is the list of money streams, never their figures, and nothing per
// event. A user's postings touch only their own accounts and the platform's, whose sums do not
// depend on the order of the streams.
type ledgerVerifier struct {
	postings func(userID string, e aggregate.Event) []books.Posting

	balances map[books.Account]money.Money
	total    money.Money
	negative map[books.Account]bool
	// from is the lowest version of each user's stream the read in position order saw; Streams
	// hands the list over and drops it.
	from map[string]int64
	cur  *replayedUser // the stream being replayed

	// The read model, read in one snapshot (modelTx, held for the run) as the replay goes;
	// model is nil when there is none.
	model     *ledger.FigureCursor
	modelTx   pgx.Tx
	modelAt   int64
	modelName string
	compared  int // users whose figures were compared with their replay

	snapshots *snapshotCheck  // nil: the snapshots are not checked
	ctx       context.Context // the run's, for the reads of the read model
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
		from:     map[string]int64{},
		ctx:      ctx,
	}
	if pool == nil {
		return v, nil
	}
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err == nil {
		err = v.openModel(ctx, tx, pool, codec)
	}
	if v.model != nil {
		v.modelTx = tx // held for the cursor until Close
	} else if tx != nil {
		_ = tx.Rollback(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("events verify: reading the ledger read model: %w", err)
	}
	return v, nil
}

// openModel lists the snapshots and opens the read model's figures, at its checkpoint, in tx.
func (v *ledgerVerifier) openModel(ctx context.Context, tx pgx.Tx, pool *pgxpool.Pool, codec *eventstore.Registry) error {
	// The transaction waits, idle, through the read of the whole log before its first fetch: a
	// server-wide limit on idle transactions must not end it.
	if _, err := tx.Exec(ctx, `SET LOCAL idle_in_transaction_session_timeout = 0`); err != nil {
		return err
	}
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
	v.model, err = ledger.OpenFigures(ctx, tx)
	v.modelName = projections.SchemaName(ledger.Name)
	return err
}

// modelFiguresOf returns the read model's figures for userID, whose stream is the next in the
// order of the users' ids, and those of any users before it: they have no money stream.
func (v *ledgerVerifier) modelFiguresOf(userID string) (got account.Balances, ok bool, strays []string, err error) {
	for {
		f, more, err := v.model.Peek(v.ctx)
		if err != nil || !more || f.UserID > userID {
			return account.Balances{}, false, strays, err
		}
		v.model.Next()
		if f.UserID == userID {
			return f.Figures, true, strays, nil
		}
		strays = append(strays, f.UserID)
	}
}

func (*ledgerVerifier) Name() string { return "ledger" }

// Observe notes the user's money stream, to be replayed by ObserveStream.
func (v *ledgerVerifier) Observe(env eventstore.Envelope, _ aggregate.Event) error {
	if env.StreamID.Category() != account.StreamCategory {
		return nil
	}
	userID := env.StreamID.ID()
	if from, ok := v.from[userID]; !ok || env.Version < from {
		v.from[userID] = env.Version
	}
	return nil
}

// Rereads: the money streams, whose every event the replay reads again.
func (v *ledgerVerifier) Rereads() string { return account.StreamCategory }

// Streams lists the money streams Observe saw, in the order of their users' ids, which is the
// order the read model's figures are read in.
func (v *ledgerVerifier) Streams() []streamRead {
	ids := make([]string, 0, len(v.from))
	for id := range v.from {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	reads := make([]streamRead, len(ids))
	for i, id := range ids {
		reads[i] = streamRead{Stream: eventstore.NewStreamID(account.StreamCategory, id), FromVersion: v.from[id]}
	}
	v.from = nil
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
	if v.model == nil {
		return errors.Join(errs...)
	}
	want := u.agg.Balances()
	if u.asOf != nil {
		want = *u.asOf
	}
	got, ok, strays, err := v.modelFiguresOf(u.userID)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("reading %s: %w", v.modelName, err))...)
	}
	errs = append(errs, v.strays(strays)...)
	v.compared++
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

// restOfModel returns the users of the figures no stream has taken.
func (v *ledgerVerifier) restOfModel() (userIDs []string, err error) {
	for {
		f, more, err := v.model.Peek(v.ctx)
		if err != nil || !more {
			return userIDs, err
		}
		v.model.Next()
		userIDs = append(userIDs, f.UserID)
	}
}

// Close ends the read of the read model, giving its connection back; Finish calls it, and a run
// that stops early must.
func (v *ledgerVerifier) Close() {
	if v.modelTx == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(v.ctx), 5*time.Second)
	defer cancel()
	_ = v.modelTx.Rollback(ctx)
	v.modelTx, v.model = nil, nil
}

// strays names figures of the read model for users without a money stream.
func (v *ledgerVerifier) strays(userIDs []string) []error {
	errs := make([]error, len(userIDs))
	for i, id := range userIDs {
		errs[i] = fmt.Errorf("%s holds figures for user %s, whose stream %s has no events", v.modelName, id, account.Stream(id))
	}
	return errs
}

// Finish checks the trial balance of the whole log (when it is off, the listing names the
// platform accounts: each user's own were checked, and dropped, with their stream) and that the
// read model holds no figures for a user without a money stream.
func (v *ledgerVerifier) Finish() error {
	var errs []error
	if v.model != nil {
		// Every stream has taken its figures: the rest belong to no stream.
		strays, err := v.restOfModel()
		errs = append(errs, v.strays(strays)...)
		if err != nil {
			errs = append(errs, fmt.Errorf("reading %s: %w", v.modelName, err))
		}
		v.Close()
	}
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
