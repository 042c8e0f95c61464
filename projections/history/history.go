// Package history is the read model of a user's money history: one item per money event the
// user should see, in the order the events happened, each with its effect on the available
// balance and the available balance after it. The history page, the CSV statement and the
// dashboard's charts and pending items read it; the live-refresh feed (Feed) watches it.
package history

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	books "clearvest/domain/ledger"
	"clearvest/domain/money"
	"clearvest/domain/reference"
	"clearvest/eventstore"
	"clearvest/projections"
)

// Name of the projection; its tables live in schema rm_history.
const Name = "history"

// Type is what an item is about, as the specification names it.
type Type string

// The item types.
const (
	TypeTransaction Type = "Transaction" // a deposit
	TypeInvestment  Type = "Investment"
	TypeWithdrawal  Type = "Withdrawal"
	TypeAdjustment  Type = "Adjustment"
	TypeFee         Type = "Fee"
	TypeBonus       Type = "Bonus"
)

// Types lists every item type, in the order the filters show them.
var Types = []Type{TypeTransaction, TypeInvestment, TypeWithdrawal, TypeAdjustment, TypeFee, TypeBonus}

// StatusCompleted is the status of an item that needs no decision (a bonus, a fee waiver, an
// adjustment).
const StatusCompleted account.Status = "Completed"

// Projection implements projections.Projection.
type Projection struct {
	codec *eventstore.Registry
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection. codec decodes the events; it needs the account events registered.
func New(codec *eventstore.Registry) *Projection {
	if codec == nil {
		panic("history: New needs the event registry")
	}
	return &Projection{codec: codec}
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Schema implements projections.Projection.
//
//   - items: one row per money event a user sees, keyed by the event's global position, which
//     orders a user's items as their events happened. subject is the deposit, investment or
//     withdrawal the event is about; kind is the event's type, so that a decision can find the
//     request it decides. A request's status follows its decisions (Pending, then Confirmed,
//     Active, Ended, Approved or Rejected); a decision's status is the one it decided. The
//     statement and the dashboard read them.
//   - movements: one row per money movement (a deposit, an investment, a withdrawal and its
//     fee, what an investment pays back, an adjustment, a bonus), changed in place as its
//     status changes; amount is signed, money into (+) or out of (−) the available balance.
//     settled_at is when it left pending, the key of the history's pages, so a later change
//     (an investment maturing) never moves a row from one page to another.
func (*Projection) Schema() string {
	return `
CREATE TABLE items (
    position      bigint        PRIMARY KEY,
    id            uuid          NOT NULL UNIQUE,
    user_id       text          NOT NULL,
    kind          text          NOT NULL,
    type          text          NOT NULL,
    status        text          NOT NULL,
    title         text          NOT NULL,
    effect        numeric(20,2) NOT NULL,
    amount        numeric(20,2) NOT NULL,
    fee           numeric(20,2) NOT NULL,
    balance_after numeric(20,2) NOT NULL,
    at            timestamptz   NOT NULL,
    subject       text          NOT NULL,
    reference     text          NOT NULL,
    details       jsonb         NOT NULL
);
CREATE INDEX items_by_user ON items (user_id, position);
CREATE INDEX items_subject ON items (user_id, subject) WHERE subject <> '';
CREATE INDEX items_pending ON items (user_id, position) WHERE status = 'Pending';
CREATE TABLE movements (
    id          text          NOT NULL,
    user_id     text          NOT NULL,
    kind        text          NOT NULL,
    subject     text          NOT NULL,
    reference   text          NOT NULL,
    amount      numeric(20,2) NOT NULL,
    status      text          NOT NULL,
    created_at  timestamptz   NOT NULL,
    updated_at  timestamptz   NOT NULL,
    settled_at  timestamptz,
    details     jsonb         NOT NULL,
    PRIMARY KEY (user_id, id)
);
CREATE INDEX movements_settled ON movements (user_id, settled_at DESC, id DESC) WHERE settled_at IS NOT NULL;
CREATE INDEX movements_pending ON movements (user_id, created_at) WHERE settled_at IS NULL;
ALTER TABLE items ALTER COLUMN details SET STATISTICS 0;
ALTER TABLE movements ALTER COLUMN details SET STATISTICS 0;`
}

// Version implements projections.Versioned: 2 added the movements (one row per money
// movement, changed in place) and human references; 3 dropped an index on the movements'
// references that no query used, which every event paid for; 4 stopped gathering the planner's
// statistics on the details, which no query filters on: sampling them was half of what analyzing
// the items cost after a rebuild (about a tenth of the database's time in the rebuild).
func (*Projection) Version() int { return 4 }

// entry is what one event contributes to the history, before the balance is folded in.
type entry struct {
	typ     Type
	status  account.Status
	title   string
	amount  money.Money
	fee     money.Money
	at      time.Time
	subject string // the deposit, investment or withdrawal id; "" for one-off items
	// reference is what the user knows the item by; "" takes the request's.
	reference string
	details   map[string]any
	// decides names the request event whose item this event decides; its status becomes
	// status, and its details are the base of this item's.
	decides string
	// alsoDecides is a second request event that may have started the subject: an investment
	// begins with a request, or with the reinvestment of an earlier one's payout.
	alsoDecides string
}

// describe turns one money event into a history entry; ok is false for events a user does not
// see. Adding a money event is one case here (its effect on the balance comes from its
// postings in domain/ledger).
func describe(e aggregate.Event) (entry, bool) {
	switch e := e.(type) {
	case account.DepositRequested:
		d := map[string]any{"asset": e.Asset, "network": e.Network, "onChainAmount": e.OnChainAmount, "usdRate": e.USDRate}
		put(d, "address", e.Address)
		put(d, "txHash", e.TxHash)
		return entry{typ: TypeTransaction, status: account.StatusPending, title: "Deposit requested", amount: e.Amount,
			at: e.At, subject: e.DepositID, reference: e.TransactionID, details: d}, true
	case account.DepositConfirmed:
		d := map[string]any{"decision": "Confirmed"}
		put(d, "notes", e.Notes)
		return entry{typ: TypeTransaction, status: account.StatusConfirmed, title: "Deposit confirmed", amount: e.Received,
			at: e.At, subject: e.DepositID, details: d, decides: account.TypeDepositRequested}, true
	case account.DepositRejected:
		d := map[string]any{"decision": "Rejected"}
		put(d, "notes", e.Notes)
		return entry{typ: TypeTransaction, status: account.StatusRejected, title: "Deposit rejected",
			at: e.At, subject: e.DepositID, details: d, decides: account.TypeDepositRequested}, true

	case account.DepositLinkedToChain:
		// The declared deposit's own item stays the one that waits; this one says what the
		// network showed, and decides nothing.
		d := map[string]any{"asset": e.Asset, "onChainAmount": e.OnChainAmount, "txHash": e.TxHash}
		put(d, "address", e.Address)
		return entry{typ: TypeTransaction, status: StatusCompleted, title: "Deposit seen on the network", at: e.At,
			reference: e.TransactionID, details: d}, true

	case account.InvestmentRequested:
		return entry{typ: TypeInvestment, status: account.StatusPending, title: "Investment requested: " + e.Terms.PlanName,
			amount: e.Amount, at: e.At, subject: e.InvestmentID, reference: reference.For(reference.Investment, e.InvestmentID), details: map[string]any{
				"plan": e.Terms.PlanName, "planId": e.Terms.PlanID, "planVersion": e.Terms.PlanVersion,
				"termDays": e.Terms.TermDays, "termRate": e.Terms.TermRate}}, true
	case account.InvestmentActivated:
		return entry{typ: TypeInvestment, status: account.StatusActive, title: "Investment activated", amount: e.Amount,
			at: e.Start, subject: e.InvestmentID, decides: account.TypeInvestmentRequested, details: map[string]any{
				"decision": "Approved", "return": e.Return.String(), "startDate": e.Start, "endDate": e.End}}, true
	case account.InvestmentRejected:
		return entry{typ: TypeInvestment, status: account.StatusRejected, title: "Investment rejected", amount: e.Amount,
			at: e.At, subject: e.InvestmentID, decides: account.TypeInvestmentRequested,
			details: map[string]any{"decision": "Rejected", "reason": e.Reason}}, true
	case account.InvestmentMatured:
		return entry{typ: TypeInvestment, status: account.StatusEnded, title: "Investment matured",
			amount: e.Principal.Add(e.Return), at: e.At, subject: e.InvestmentID, decides: account.TypeInvestmentRequested,
			alsoDecides: account.TypeInvestmentReinvested,
			details:     map[string]any{"principal": e.Principal.String(), "return": e.Return.String()}}, true
	case account.InvestmentRedeemed:
		return entry{typ: TypeInvestment, status: account.StatusEnded, title: "Investment closed early",
			amount: e.Principal, at: e.At, subject: e.InvestmentID, decides: account.TypeInvestmentRequested,
			alsoDecides: account.TypeInvestmentReinvested, details: map[string]any{
				"principal": e.Principal.String(), "forfeited": e.Forfeited.String(), "closedEarly": true}}, true
	case account.InvestmentReinvested:
		return entry{typ: TypeInvestment, status: account.StatusActive, title: "Payout reinvested: " + e.Terms.PlanName,
			amount: e.Amount, at: e.Start, subject: e.NewInvestmentID, reference: reference.For(reference.Investment, e.NewInvestmentID), details: map[string]any{
				"plan": e.Terms.PlanName, "planId": e.Terms.PlanID, "planVersion": e.Terms.PlanVersion,
				"termDays": e.Terms.TermDays, "termRate": e.Terms.TermRate, "return": e.Return.String(),
				"startDate": e.Start, "endDate": e.End, "reinvestedFrom": reference.For(reference.Investment, e.InvestmentID)}}, true
	case account.InvestmentInstructionSet:
		// An instruction moves nothing and decides nothing: the investment keeps its status.
		title := "At maturity: pay out to your wallet"
		if e.Instruction == account.InstructionReinvest {
			title = "At maturity: reinvest in the same plan"
		}
		return entry{typ: TypeInvestment, status: StatusCompleted, title: title, at: e.At,
			reference: reference.For(reference.Investment, e.InvestmentID), details: map[string]any{"instruction": string(e.Instruction)}}, true

	case account.WithdrawalRequested:
		return entry{typ: TypeWithdrawal, status: account.StatusPending, title: "Withdrawal requested", amount: e.Amount,
			fee: e.Fee, at: e.At, subject: e.WithdrawalID, reference: reference.For(reference.Withdrawal, e.WithdrawalID), details: map[string]any{
				"address": e.Address, "network": e.Network, "asset": e.Asset, "receive": e.Amount.Sub(e.Fee).String()}}, true
	case account.WithdrawalApproved:
		d := map[string]any{"decision": "Approved", "txHash": e.TxHash}
		put(d, "onChainAmount", e.OnChainAmount)
		put(d, "usdRate", e.USDRate)
		return entry{typ: TypeWithdrawal, status: account.StatusApproved, title: "Withdrawal approved", amount: e.Amount,
			fee: e.Fee, at: e.At, subject: e.WithdrawalID, decides: account.TypeWithdrawalRequested, details: d}, true
	case account.WithdrawalRejected:
		return entry{typ: TypeWithdrawal, status: account.StatusRejected, title: "Withdrawal rejected", amount: e.Amount,
			at: e.At, subject: e.WithdrawalID, decides: account.TypeWithdrawalRequested,
			details: map[string]any{"decision": "Rejected", "reason": e.Reason}}, true

	case account.FeeWaived:
		// A waiver refers to its withdrawal but decides nothing: the withdrawal stays approved.
		return entry{typ: TypeFee, status: StatusCompleted, title: "Withdrawal fee waived", amount: e.Amount,
			at: e.At, reference: reference.For(reference.Withdrawal, e.WithdrawalID), details: map[string]any{"reason": e.Reason}}, true
	case account.FeeExemptionSet:
		// Moves nothing: from now on withdrawals are charged no fee, or the schedule's again.
		title := "Withdrawal fees apply again"
		if e.Exempt {
			title = "No withdrawal fees from now on"
		}
		return entry{typ: TypeFee, status: StatusCompleted, title: title, at: e.At, details: map[string]any{"exempt": e.Exempt}}, true
	case account.ReferralBonusCredited:
		return entry{typ: TypeBonus, status: StatusCompleted, title: "Referral bonus", amount: e.Amount, at: e.At,
			details: map[string]any{}}, true
	case account.AdjustmentPosted:
		return entry{typ: TypeAdjustment, status: StatusCompleted, title: "Adjustment", amount: abs(e.Amount), at: e.At,
			reference: reference.For(reference.Adjustment, e.AdjustmentID), details: map[string]any{"category": string(e.Category), "reason": e.Reason}}, true
	}
	return entry{}, false
}

func refBonus(eventID uuid.UUID) string { return reference.For(reference.Bonus, eventID.String()) }

func put(d map[string]any, k, v string) {
	if v != "" {
		d[k] = v
	}
}

func abs(m money.Money) money.Money {
	if m.IsNegative() {
		return m.Neg()
	}
	return m
}

// effect is what the event did to userID's available balance: the sum of its postings to that
// account in the books, so the history can never disagree with them.
func effect(userID string, e aggregate.Event) money.Money {
	available := books.UserAccount(userID, books.BookAvailable)
	total := money.Zero
	for _, p := range books.Postings(userID, e) {
		if p.Account == available {
			total = total.Add(p.Amount)
		}
	}
	return total
}

type request struct {
	position  int64
	reference string
	details   map[string]any
	// encoded holds the details instead, as JSON, when a rebuild holds the request to the end.
	encoded []byte
}

// Apply writes one item per money event and its changes to the movements. Balances continue
// from each user's last item; a decision's item takes its request's reference and details, and
// sets the request's status.
//
// A batch costs two round trips whatever its size: one read (every user's last balance and
// every earlier request a decision needs) and one write (at most one INSERT into each table,
// then the changes of rows from earlier batches). Changes of rows written in the same batch are
// made in memory before they are written. A statement or a round trip per event was most of
// this projection's cost under load (docs/benchmarks.md, "Money commands over HTTP").
func (p *Projection) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	var list []described
	users := map[string]bool{}
	wanted := map[requestKey]bool{}
	for _, env := range events {
		it, ok, err := p.describeEvent(ctx, env)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		list = append(list, it)
		users[it.userID] = true
		for _, kind := range []string{it.entry.decides, it.entry.alsoDecides} {
			if kind != "" {
				wanted[requestKey{it.userID, kind, it.entry.subject}] = true
			}
		}
	}
	if len(list) == 0 {
		return nil
	}
	balances, stored, err := readPrior(ctx, tx, keys(users), wanted)
	if err != nil {
		return err
	}
	f := &fold{balances: balances, requests: map[requestKey]*request{}, stored: stored, statusOf: map[int64]string{},
		changes: &pgx.Batch{}}
	f.requestItems = &f.items // one INSERT for the batch's items
	for _, it := range list {
		if err := f.add(it); err != nil {
			return err
		}
	}
	batch := &pgx.Batch{}
	f.items.queue(batch)
	if len(f.decided) > 0 {
		statuses := make([]string, len(f.decided))
		for i, pos := range f.decided {
			statuses[i] = f.statusOf[pos]
		}
		batch.Queue(`UPDATE items SET status = d.status FROM unnest($1::bigint[], $2::text[]) AS d(position, status)
			WHERE items.position = d.position`, f.decided, statuses)
	}
	batch.QueuedQueries = append(batch.QueuedQueries, f.changes.QueuedQueries...)
	// The new movements go last: one may start from the details of a movement of an earlier
	// batch (a return from its investment's), as the changes above left them.
	if err := f.moves.queue(batch); err != nil {
		return fmt.Errorf("history: movements: %w", err)
	}
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// described is a money event a user sees, decoded and described.
type described struct {
	env    eventstore.Envelope
	e      aggregate.Event
	entry  entry
	userID string
}

// describeEvent decodes env if it is an account's event; ok is false for events no user sees.
func (p *Projection) describeEvent(ctx context.Context, env eventstore.Envelope) (described, bool, error) {
	if env.StreamID.Category() != account.StreamCategory {
		return described{}, false, nil
	}
	e, err := projections.Decode(ctx, p.codec, env)
	if err != nil {
		return described{}, false, fmt.Errorf("history: %s at position %d: %w", env.Type, env.Position, err)
	}
	en, ok := describe(e)
	if !ok {
		return described{}, false, nil
	}
	return described{env, e, en, env.StreamID.ID()}, true, nil
}

// fold is what events are folded into before their rows are written: one batch's in Apply, the
// whole log's in a rebuild (Builder).
type fold struct {
	balances map[string]money.Money  // each user's available balance after their last item
	requests map[requestKey]*request // requests folded here
	stored   map[requestKey]*request // requests of earlier batches, read back (Apply only)
	items    itemRows
	// requestItems holds the items of requests, whose status follows their decisions: the same
	// rows as items in Apply; in a rebuild they are held to the end while the others are written.
	requestItems *itemRows
	moves        movementRows
	// changes are the UPDATEs of movements of earlier batches, in event order; nil in a rebuild,
	// which holds every movement.
	changes  *pgx.Batch
	statusOf map[int64]string // items of earlier batches whose request was decided here
	decided  []int64
}

// add folds one event.
func (f *fold) add(it described) error {
	en, userID := it.entry, it.userID
	details := en.details
	reference := en.reference
	if en.typ == TypeBonus {
		reference = refBonus(it.env.ID)
	}
	for _, op := range movements(it.e, it.env.ID) {
		if err := f.moves.apply(f.changes, op, userID, it.env.RecordedAt); err != nil {
			return fmt.Errorf("history: movement at position %d: %w", it.env.Position, err)
		}
	}
	if en.decides != "" {
		var req *request
		for _, kind := range []string{en.decides, en.alsoDecides} {
			if kind == "" || req != nil {
				continue
			}
			k := requestKey{userID, kind, en.subject}
			if req = f.requests[k]; req == nil {
				req = f.stored[k]
			}
		}
		if req == nil {
			return fmt.Errorf("history: %s at position %d decides %s %q, which has no item", it.env.Type, it.env.Position, en.decides, en.subject)
		}
		if reference == "" {
			reference = req.reference
		}
		merged := map[string]any{}
		if req.details == nil && req.encoded != nil {
			// As Apply reads the details of a request of an earlier batch back.
			if err := json.Unmarshal(req.encoded, &merged); err != nil {
				return fmt.Errorf("history: request %s: %w", en.subject, err)
			}
		}
		for k, v := range req.details {
			merged[k] = v
		}
		for k, v := range details {
			merged[k] = v
		}
		details = merged
		if !f.requestItems.setStatus(req.position, string(en.status)) {
			if _, seen := f.statusOf[req.position]; !seen {
				f.decided = append(f.decided, req.position)
			}
			f.statusOf[req.position] = string(en.status)
		}
	}
	eff := effect(userID, it.e)
	bal := f.balances[userID].Add(eff)
	f.balances[userID] = bal
	js, err := json.Marshal(details)
	if err != nil {
		return fmt.Errorf("history: details at position %d: %w", it.env.Position, err)
	}
	at := en.at
	if at.IsZero() {
		at = it.env.RecordedAt
	}
	isRequest := en.subject != "" && en.decides == ""
	rows := &f.items
	if isRequest {
		rows = f.requestItems
	}
	rows.add(it.env, userID, en, eff, bal, at.UTC(), reference, js)
	if isRequest {
		req := &request{position: it.env.Position, reference: reference, details: en.details}
		if f.moves.whole {
			req.details, req.encoded = nil, js
		}
		f.requests[requestKey{userID, it.env.Type, en.subject}] = req
	}
	return nil
}

// itemRows collects items, column by column, for one multi-row INSERT.
type itemRows struct {
	positions []int64
	// ids are the events' ids as bytes: pgx encodes a uuid.UUID through its driver.Valuer,
	// ten times slower (2.5 µs an id).
	ids                                   [][16]byte
	users, kinds, types, statuses, titles []string
	effects, amounts, fees, balances      []money.Money
	at                                    []time.Time
	subjects, references                  []string
	details                               [][]byte
	index                                 map[int64]int // by position
}

func (r *itemRows) add(env eventstore.Envelope, userID string, en entry, eff, bal money.Money, at time.Time, reference string, details []byte) {
	if r.index == nil {
		r.index = map[int64]int{}
	}
	r.index[env.Position] = len(r.positions)
	r.positions = append(r.positions, env.Position)
	r.ids = append(r.ids, [16]byte(env.ID))
	r.users = append(r.users, userID)
	r.kinds = append(r.kinds, env.Type)
	r.types = append(r.types, string(en.typ))
	r.statuses = append(r.statuses, string(en.status))
	r.titles = append(r.titles, en.title)
	r.effects = append(r.effects, eff)
	r.amounts = append(r.amounts, en.amount)
	r.fees = append(r.fees, en.fee)
	r.balances = append(r.balances, bal)
	r.at = append(r.at, at)
	r.subjects = append(r.subjects, en.subject)
	r.references = append(r.references, reference)
	r.details = append(r.details, details)
}

// setStatus sets the status of the item at position if it is among those collected, and reports
// whether it was.
func (r *itemRows) setStatus(position int64, status string) bool {
	i, ok := r.index[position]
	if ok {
		r.statuses[i] = status
	}
	return ok
}

// queue adds the INSERT of the items collected so far to batch, and starts afresh.
func (r *itemRows) queue(batch *pgx.Batch) {
	if len(r.positions) == 0 {
		return
	}
	batch.Queue(`INSERT INTO items (position, id, user_id, kind, type, status, title, effect, amount, fee, balance_after,
		at, subject, reference, details)
		SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
		  $8::numeric[], $9::numeric[], $10::numeric[], $11::numeric[], $12::timestamptz[], $13::text[], $14::text[], $15::jsonb[])`,
		r.positions, r.ids, r.users, r.kinds, r.types, r.statuses, r.titles, texts(r.effects), texts(r.amounts), texts(r.fees),
		texts(r.balances), r.at, r.subjects, r.references, r.details)
	*r = itemRows{}
}

// copy writes the items collected so far with COPY, and starts afresh.
func (r *itemRows) copy(ctx context.Context, tx pgx.Tx) error {
	if len(r.positions) == 0 {
		return nil
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"items"}, []string{"position", "id", "user_id", "kind", "type", "status", "title",
		"effect", "amount", "fee", "balance_after", "at", "subject", "reference", "details"},
		pgx.CopyFromSlice(len(r.positions), func(i int) ([]any, error) {
			num := projections.Numeric
			return []any{r.positions[i], r.ids[i], r.users[i], r.kinds[i], r.types[i], r.statuses[i], r.titles[i],
				num(r.effects[i]), num(r.amounts[i]), num(r.fees[i]), num(r.balances[i]), r.at[i],
				r.subjects[i], r.references[i], r.details[i]}, nil
		}))
	if err != nil {
		return fmt.Errorf("history: copy items: %w", err)
	}
	*r = itemRows{}
	return nil
}

func texts(ms []money.Money) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return out
}

// requestKey names a request event: its user, its type and its subject.
type requestKey struct{ user, kind, subject string }

// readPrior reads, in one round trip, each user's available balance after their last item, and
// the items of the wanted requests that earlier batches wrote (the first of each, by position).
func readPrior(ctx context.Context, tx pgx.Tx, users []string, wanted map[requestKey]bool) (map[string]money.Money, map[requestKey]*request, error) {
	batch := &pgx.Batch{}
	// One backward index probe per user: DISTINCT ON over user_id = ANY would read every item of
	// each user, so a batch cost grew with the users' histories.
	batch.Queue(`SELECT u.id, last.balance_after::text FROM unnest($1::text[]) AS u(id)
		CROSS JOIN LATERAL (SELECT balance_after FROM items WHERE user_id = u.id ORDER BY position DESC LIMIT 1) last`, users)
	if len(wanted) > 0 {
		var us, kinds, subjects []string
		for k := range wanted {
			us, kinds, subjects = append(us, k.user), append(kinds, k.kind), append(subjects, k.subject)
		}
		batch.Queue(`SELECT w.user_id, w.kind, w.subject, r.position, r.reference, r.details
			FROM unnest($1::text[], $2::text[], $3::text[]) AS w(user_id, kind, subject)
			CROSS JOIN LATERAL (SELECT position, reference, details FROM items
				WHERE user_id = w.user_id AND subject = w.subject AND kind = w.kind ORDER BY position LIMIT 1) r`,
			us, kinds, subjects)
	}
	br := tx.SendBatch(ctx, batch)
	defer br.Close()
	balances := map[string]money.Money{}
	rows, err := br.Query()
	if err != nil {
		return nil, nil, fmt.Errorf("history: balances: %w", err)
	}
	for rows.Next() {
		var u, s string
		if err := rows.Scan(&u, &s); err != nil {
			return nil, nil, fmt.Errorf("history: balances: %w", err)
		}
		m, err := money.Parse(s)
		if err != nil {
			return nil, nil, fmt.Errorf("history: balance of %s: %w", u, err)
		}
		balances[u] = m
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("history: balances: %w", err)
	}
	requests := map[requestKey]*request{}
	if len(wanted) == 0 {
		return balances, requests, br.Close()
	}
	if rows, err = br.Query(); err != nil {
		return nil, nil, fmt.Errorf("history: requests: %w", err)
	}
	for rows.Next() {
		var k requestKey
		var r request
		var js []byte
		if err := rows.Scan(&k.user, &k.kind, &k.subject, &r.position, &r.reference, &js); err != nil {
			return nil, nil, fmt.Errorf("history: requests: %w", err)
		}
		if err := json.Unmarshal(js, &r.details); err != nil {
			return nil, nil, fmt.Errorf("history: request %s: %w", k.subject, err)
		}
		requests[k] = &r
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("history: requests: %w", err)
	}
	return balances, requests, br.Close()
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Builder implements projections.Bulk: a rebuild folds the whole log in memory, holding every
// user's balance, every request with its item (its status follows its decisions) and every
// movement (changed in place by later events) to the end; the other items are written batch by
// batch. Apply would read the balances and requests back and update the rows in place.
func (p *Projection) Builder() projections.Builder {
	f := &fold{balances: map[string]money.Money{}, requests: map[requestKey]*request{}, requestItems: &itemRows{},
		statusOf: map[int64]string{}, moves: movementRows{whole: true}}
	return &builder{p: p, f: f}
}

type builder struct {
	p *Projection
	f *fold
}

func (b *builder) Add(ctx context.Context, env eventstore.Envelope) error {
	it, ok, err := b.p.describeEvent(ctx, env)
	if err != nil || !ok {
		return err
	}
	return b.f.add(it)
}

func (b *builder) Write(ctx context.Context, tx pgx.Tx, final bool) error {
	if err := b.f.items.copy(ctx, tx); err != nil {
		return err
	}
	if !final {
		return nil
	}
	if len(b.f.decided) > 0 {
		// Every request's item is held to the end, so a decision always finds it.
		return fmt.Errorf("history: %d decided items were not held", len(b.f.decided))
	}
	if err := b.f.requestItems.copy(ctx, tx); err != nil {
		return err
	}
	return b.f.moves.copy(ctx, tx)
}

var _ projections.Bulk = (*Projection)(nil)
