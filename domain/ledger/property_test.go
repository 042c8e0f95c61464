package ledger_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
	"clearvest/domain/ledger"
	"clearvest/domain/money"
)

// The property: whatever users and staff do, in whatever order, with whatever amounts, after
// every single command
//   - available ≥ 0, held ≥ 0 and invested ≥ 0;
//   - every hold is posted at most once, for exactly its amount, or voided at most once, never
//     both, and held equals the pending holds;
//   - a refused command raised nothing and said why (a classified error); deciding a decided
//     request is a Conflict, an unknown one NotFound;
//   - every posting set sums to zero, the trial balance sums to zero, no user account of the
//     books ever went negative;
//   - the figures read from the postings equal the aggregate's;
//   - replaying the raised events into a fresh aggregate gives the same state;
//   - the command was accepted or refused as the reference model (model_test.go), the rules
//     written again in plain arithmetic, accepts or refuses it, and every balance (available,
//     held, invested, returns, fees, adjustments, referrals) equals the model's;
// and at the end of a sequence, the audit of events verify (account.Replay) accepts its history.

const (
	simUser  = "u-1"
	simStaff = "s-1"
)

// source is where a sequence's choices come from: a seeded generator, or a fuzzer's bytes.
type source interface {
	intn(n int) int // in [0, n)
	done() bool
}

type rngSource struct{ r *rand.Rand }

func (s rngSource) intn(n int) int { return s.r.IntN(n) }
func (s rngSource) done() bool     { return false }

type byteSource struct {
	b []byte
	i int
}

func (s *byteSource) intn(n int) int {
	var v uint32
	if s.i+4 <= len(s.b) {
		v = binary.LittleEndian.Uint32(s.b[s.i:])
	} else if s.i < len(s.b) {
		v = uint32(s.b[s.i])
	}
	s.i += 4
	return int(v % uint32(n))
}

func (s *byteSource) done() bool { return s.i >= len(s.b) }

type postingsFunc func(userID string, e aggregate.Event) []ledger.Posting

type sim struct {
	src      source
	postings postingsFunc
	acc      *account.Account
	ref      *refModel // the rules written again, independently (model_test.go)
	now      time.Time
	events   []aggregate.Event
	posted   []ledger.Posting
	tb       *ledger.TrialBalance

	holdState  map[string]account.HoldStatus // the test's own record of every hold
	holdAmount map[string]money.Money
	deposits   []string
	invests    []string
	withdraws  []string
	decided    map[string]bool // requests the test saw decided
	nextID     int
	stats      map[string]int
}

func newSim(src source, postings postingsFunc) *sim {
	return &sim{
		src: src, postings: postings, acc: account.New(simUser), ref: newRefModel(simUser),
		now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), tb: ledger.NewTrialBalance(),
		holdState: map[string]account.HoldStatus{}, holdAmount: map[string]money.Money{},
		decided: map[string]bool{}, stats: map[string]int{},
	}
}

func (s *sim) pick(n int) int { return s.src.intn(n) }

func (s *sim) cents(c int64) money.Money { return money.FromCents(c) }

// amount is an amount near ref (an edge) or anywhere, sometimes not positive.
func (s *sim) amount(ref money.Money) money.Money {
	one := s.cents(1)
	switch s.pick(14) {
	case 0:
		return money.Zero
	case 1:
		return one
	case 2, 3:
		return ref
	case 4:
		return ref.Add(one)
	case 5:
		return ref.Sub(one)
	case 6:
		return s.cents(int64(1 + s.pick(99)))
	case 7:
		return s.cents(-int64(s.pick(10000)))
	case 8:
		return s.cents(int64(1+s.pick(1_000_000)) * 1_000_000) // up to $10 billion
	default:
		return s.cents(int64(1 + s.pick(200_000)))
	}
}

func (s *sim) fee(amount money.Money) money.Money {
	switch s.pick(6) {
	case 0:
		return money.Zero
	case 1:
		return amount
	case 2:
		return amount.Sub(s.cents(1))
	case 3:
		return s.cents(int64(s.pick(500)))
	case 4:
		return s.cents(-1)
	default:
		if c, ok := amount.Cents(); ok && c > 1 {
			return s.cents(int64(s.pick(int(min(c, 1<<30)))))
		}
		return money.Zero
	}
}

var rates = []string{"0", "0.01", "0.0125", "0.125", "0.135", "0.1", "0.23", "0.00333", "1.5", "0.005"}

func (s *sim) terms() account.Terms {
	lo := int64(1 + s.pick(20_000))
	return account.Terms{
		PlanID: "p" + strconv.Itoa(s.pick(4)), PlanVersion: 1 + s.pick(3), PlanName: "Plan",
		TermDays: 1 + s.pick(60), TermRate: rates[s.pick(len(rates))],
		Min: s.cents(lo), Max: s.cents(lo + int64(s.pick(500_000))),
	}
}

// id is a new id, or now and then one already used.
func (s *sim) id(prefix string, used []string) string {
	if len(used) > 0 && s.pick(10) == 0 {
		return used[s.pick(len(used))]
	}
	s.nextID++
	return prefix + strconv.Itoa(s.nextID)
}

// target is an existing request (decided or not) or, now and then, an unknown one.
func (s *sim) target(ids []string) string {
	if len(ids) == 0 || s.pick(12) == 0 {
		return "unknown-" + strconv.Itoa(s.pick(3))
	}
	return ids[s.pick(len(ids))]
}

func (s *sim) staff() string {
	if s.pick(40) == 0 {
		return simUser // staff acting on their own account is refused
	}
	return simStaff
}

// step runs one random command and checks every property after it.
func (s *sim) step() error {
	before := len(s.acc.Changes())
	name, decision, target, accepted, err := s.command()
	raised := s.acc.Changes()[before:]
	if accepted != (err == nil) {
		verdict := "accepted"
		if err != nil {
			verdict = "refused (" + err.Error() + ")"
		}
		return fmt.Errorf("%s %s: the aggregate %s it, the reference model %s", name, target, verdict, map[bool]string{true: "accepts", false: "refuses"}[accepted])
	}
	if diff := s.ref.differences(s.acc.Balances()); diff != "" {
		return fmt.Errorf("after %s %s: the balances differ from the reference model: %s", name, target, diff)
	}
	if err != nil {
		s.stats["refused "+name]++
		if len(raised) > 0 {
			return fmt.Errorf("%s refused (%v) but raised %d events", name, err, len(raised))
		}
		kind, msg, ok := domainerr.KindOf(err)
		if !ok || msg == "" {
			return fmt.Errorf("%s refused with an unclassified error %v", name, err)
		}
		staffRefused := errors.Is(err, account.ErrInvalidStaffID) || errors.Is(err, account.ErrOwnAccount)
		switch {
		case !decision || staffRefused:
		case s.decided[target] && kind != domainerr.Conflict:
			return fmt.Errorf("%s of decided %s: %v (kind %v), want a Conflict", name, target, err, kind)
		case !s.known(target) && kind != domainerr.NotFound:
			return fmt.Errorf("%s of unknown %s: %v (kind %v), want NotFound", name, target, err, kind)
		}
	} else {
		s.stats[name]++
		if decision && s.decided[target] {
			return fmt.Errorf("%s of %s decided it a second time", name, target)
		}
	}
	for _, e := range raised {
		if err := s.record(e); err != nil {
			return fmt.Errorf("after %s: %w", name, err)
		}
	}
	if err := s.check(); err != nil {
		return fmt.Errorf("after %s (%d events): %w", name, len(s.events), err)
	}
	return nil
}

func (s *sim) known(id string) bool {
	for _, ids := range [][]string{s.deposits, s.invests, s.withdraws} {
		for _, x := range ids {
			if x == id {
				return true
			}
		}
	}
	return false
}

// waive waives part of a withdrawal's fee: one of the commands that succeed rarely (only a
// withdrawal with a fee left qualifies), so it is picked from more than one turn.
func (s *sim) waive() (name string, decision bool, target string, accepted bool, err error) {
	id := s.target(s.withdraws)
	w, _ := s.acc.Withdrawal(id)
	amt, staff := s.amount(w.Fee.Sub(w.FeeWaived)), s.staff()
	return "waive fee", false, id, s.ref.waiveFee(id, dec(amt), staff), s.acc.WaiveFee(id, amt, "sorry", staff, s.now)
}

// command runs one random command on the aggregate and the same command, with the same inputs,
// on the reference model. target is the request (or referred user, or correction) it is about;
// decision says whether it decides that request; accepted is the model's verdict.
func (s *sim) command() (name string, decision bool, target string, accepted bool, err error) {
	a, ref, now := s.acc, s.ref, s.now
	switch op := s.pick(21); op {
	case 0, 1:
		id := s.id("d", s.deposits)
		amt := s.amount(s.cents(10_000))
		err = a.RequestDeposit(account.DepositRequest{
			DepositID: id, TransactionID: "T" + id, Amount: amt, Asset: "USDT", Network: "TRC20", OnChainAmount: "1.000001", USDRate: "1",
		}, now)
		if err == nil {
			s.deposits = append(s.deposits, id)
		}
		return "request deposit", false, id, ref.requestDeposit(id, dec(amt)), err
	case 2, 3:
		id := s.target(s.deposits)
		d, _ := a.Deposit(id)
		received, staff := s.amount(d.Amount), s.staff()
		return "confirm deposit", true, id, ref.decideDeposit(id, true, dec(received), staff), a.ConfirmDeposit(id, received, "", staff, now)
	case 4:
		id := s.target(s.deposits)
		staff := s.staff()
		return "reject deposit", true, id, ref.decideDeposit(id, false, decimal.Zero, staff), a.RejectDeposit(id, "nothing arrived", staff, now)
	case 5, 6:
		id := s.id("i", s.invests)
		terms, amt := s.terms(), s.amount(a.Available())
		err = a.RequestInvestment(id, terms, amt, now)
		if err == nil {
			s.invests = append(s.invests, id)
		}
		return "request investment", false, id, ref.requestInvestment(id, terms, dec(amt)), err
	case 7:
		id := s.target(s.invests)
		staff := s.staff()
		return "activate investment", true, id, ref.decideInvestment(id, true, staff, now), a.ActivateInvestment(id, staff, now)
	case 8:
		id := s.target(s.invests)
		staff := s.staff()
		return "reject investment", true, id, ref.decideInvestment(id, false, staff, now), a.RejectInvestment(id, "no", staff, now)
	case 9:
		return s.mature()
	case 10, 11:
		id := s.id("w", s.withdraws)
		amt := s.amount(a.Available())
		fee := s.fee(amt)
		err = a.RequestWithdrawal(account.WithdrawalRequest{
			WithdrawalID: id, Amount: amt, Fee: fee, Address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", Network: "TRC20", Asset: "USDT",
		}, now)
		if err == nil {
			s.withdraws = append(s.withdraws, id)
		}
		return "request withdrawal", false, id, ref.requestWithdrawal(id, dec(amt), dec(fee)), err
	case 12:
		id := s.target(s.withdraws)
		staff := s.staff()
		return "approve withdrawal", true, id, ref.decideWithdrawal(id, true, staff), a.ApproveWithdrawal(id, account.Payout{TxHash: fmt.Sprintf("%064x", id)}, staff, now)
	case 13:
		id := s.target(s.withdraws)
		staff := s.staff()
		return "reject withdrawal", true, id, ref.decideWithdrawal(id, false, staff), a.RejectWithdrawal(id, "no", staff, now)
	case 14:
		return s.waive()
	case 17, 19:
		ins := []account.Instruction{account.InstructionPayOut, account.InstructionReinvest, account.InstructionReinvest, account.InstructionReinvest, "hold"}[s.pick(5)]
		id := s.target(s.invests)
		return "set instruction", false, id, ref.setInstruction(id, ins), a.SetMaturityInstruction(id, ins, now)
	case 18:
		if s.pick(2) == 0 {
			id := s.target(s.invests)
			return "redeem early", false, id, ref.redeemEarly(id, now), a.RedeemEarly(id, now)
		}
		return s.mature()
	case 20:
		// Now and then: a linked deposit is no longer staff's to confirm, so linking at every
		// turn would starve the commands that need confirmed money.
		switch s.pick(8) {
		case 0:
		case 1, 2, 3:
			return s.waive()
		default:
			return s.mature()
		}
		id := s.target(s.deposits)
		chainID := "c" + id
		return "link deposit", false, id, ref.linkDeposit(id, chainID),
			a.LinkDepositToChain(id, account.ChainLink{ChainDepositID: chainID, TxHash: fmt.Sprintf("%064x", len(id)), Address: "bc1q", Asset: "USDT", OnChainAmount: "1"}, now)
	case 15:
		referred, amt := "r"+strconv.Itoa(s.pick(6)), s.amount(s.cents(500))
		return "credit referral", false, referred, ref.creditReferral(referred, dec(amt)), a.CreditReferralBonus(referred, amt, now)
	default:
		if s.pick(4) == 0 {
			on, staff := s.pick(2) == 0, s.staff()
			return "set fee exemption", false, "fees", ref.setFeeExemption(staff), a.SetFeeExemption(on, "policy", staff, now)
		}
		amt := s.amount(a.Available())
		if s.pick(2) == 0 {
			amt = amt.Neg()
		}
		s.nextID++
		id := "a" + strconv.Itoa(s.nextID)
		if s.pick(15) == 0 {
			id = "a1"
		}
		staff := s.staff()
		return "post adjustment", false, id, ref.postAdjustment(id, dec(amt), staff),
			a.PostAdjustment(account.Adjustment{AdjustmentID: id, Amount: amt, Category: account.CategoryCorrection, Reason: "fix"}, staff, now)
	}
}

// mature moves time on and matures everything due, or one investment.
func (s *sim) mature() (string, bool, string, bool, error) {
	s.now = s.now.Add(time.Duration(s.pick(40*24)) * time.Hour)
	if s.pick(2) == 0 {
		return "mature due", false, "", s.ref.matureDue(s.now), s.acc.MatureDue(s.now)
	}
	id := s.target(s.invests)
	return "mature investment", false, id, s.ref.matureOne(id, s.now), s.acc.MatureInvestment(id, s.now)
}

// record posts one raised event and follows its hold.
func (s *sim) record(e aggregate.Event) error {
	s.events = append(s.events, e)
	s.stats["event "+e.EventName()]++
	ps := s.postings(simUser, e)
	if sum := ledger.Sum(ps); !sum.IsZero() {
		return fmt.Errorf("postings of %s sum to %s: %+v", e.EventName(), sum, ps)
	}
	s.tb.Post(ps)
	s.posted = append(s.posted, ps...)

	open := func(id string, amount money.Money) error {
		if _, ok := s.holdState[id]; ok {
			return fmt.Errorf("hold %s opened twice", id)
		}
		s.holdState[id], s.holdAmount[id] = account.HoldPending, amount
		return nil
	}
	settle := func(id string, to account.HoldStatus, amount money.Money) error {
		if st := s.holdState[id]; st != account.HoldPending {
			return fmt.Errorf("hold %s %s while %q", id, to, st)
		}
		if !amount.Equal(s.holdAmount[id]) {
			return fmt.Errorf("hold %s of %s %s for %s", id, s.holdAmount[id], to, amount)
		}
		s.holdState[id], s.decided[id] = to, true
		return nil
	}
	switch e := e.(type) {
	case account.DepositConfirmed:
		s.decided[e.DepositID] = true
	case account.DepositRejected:
		s.decided[e.DepositID] = true
	case account.InvestmentRequested:
		return open(e.InvestmentID, e.Amount)
	case account.WithdrawalRequested:
		return open(e.WithdrawalID, e.Amount)
	case account.InvestmentActivated:
		return settle(e.InvestmentID, account.HoldPosted, e.Amount)
	case account.WithdrawalApproved:
		return settle(e.WithdrawalID, account.HoldPosted, e.Amount)
	case account.InvestmentRejected:
		return settle(e.InvestmentID, account.HoldVoided, e.Amount)
	case account.WithdrawalRejected:
		return settle(e.WithdrawalID, account.HoldVoided, e.Amount)
	}
	return nil
}

func (s *sim) check() error {
	b := s.acc.Balances()
	if b.Available.IsNegative() || b.Held.IsNegative() || b.Invested.IsNegative() {
		return fmt.Errorf("a balance went negative: %+v", b)
	}
	pending := money.Zero
	for _, h := range s.acc.Holds() {
		if h.Status != s.holdState[h.ID] {
			return fmt.Errorf("hold %s is %s, the events say %s", h.ID, h.Status, s.holdState[h.ID])
		}
		if h.Status == account.HoldPending {
			pending = pending.Add(h.Amount)
		}
	}
	if !pending.Equal(b.Held) {
		return fmt.Errorf("held %s, pending holds %s", b.Held, pending)
	}
	if !s.tb.Balanced() {
		return fmt.Errorf("trial balance off by %s, unbalanced sets %v", s.tb.Total(), s.tb.Unbalanced())
	}
	if neg := s.tb.WentNegative(); len(neg) > 0 {
		return fmt.Errorf("user accounts went negative in the books: %v", neg)
	}
	for _, book := range []string{ledger.BookAvailable, ledger.BookHeld, ledger.BookInvested} {
		if bal := s.tb.Balance(ledger.UserAccount(simUser, book)); bal.IsNegative() {
			return fmt.Errorf("%s is %s", book, bal)
		}
	}
	if fig := ledger.Figures(simUser, s.posted); !fig.Equal(b) {
		return fmt.Errorf("figures from the postings %+v differ from the aggregate's %+v", fig, b)
	}
	fresh := account.New(simUser)
	aggregate.Load(fresh, int64(len(s.events)), s.events...)
	if !sameState(fresh, s.acc) {
		return fmt.Errorf("replaying %d events gives another state:\nreplayed %+v\nlive     %+v", len(s.events), fresh.Balances(), b)
	}
	return nil
}

func sameState(x, y *account.Account) bool {
	return x.Balances().Equal(y.Balances()) &&
		reflect.DeepEqual(x.Holds(), y.Holds()) &&
		reflect.DeepEqual(x.Deposits(), y.Deposits()) &&
		reflect.DeepEqual(x.Investments(), y.Investments()) &&
		reflect.DeepEqual(x.Withdrawals(), y.Withdrawals())
}

// runSequence runs one sequence of at most maxSteps commands.
func runSequence(src source, postings postingsFunc, maxSteps int) (*sim, error) {
	s := newSim(src, postings)
	steps := 1 + s.pick(maxSteps)
	for i := 0; i < steps && !src.done(); i++ {
		if err := s.step(); err != nil {
			return s, fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	// The audit of events verify accepts every history the commands wrote.
	r := account.NewReplay(simUser)
	for i, e := range s.events {
		if err := r.Next(int64(i+1), e); err != nil {
			return s, fmt.Errorf("the audit refuses what the commands raised: %w", err)
		}
	}
	if err := r.Finish(int64(len(s.events))); err != nil {
		return s, fmt.Errorf("the audit refuses what the commands raised: %w", err)
	}
	return s, snapshotReplays(s.events, s.pick(len(s.events)+1))
}

// snapshotReplays checks that the state saved after the first k events, restored and followed
// by the rest, is the state of replaying them all: what a command decides on after loading from
// a snapshot.
func snapshotReplays(events []aggregate.Event, k int) error {
	head := account.New(simUser)
	aggregate.Load(head, int64(k), events[:k]...)
	saved, err := head.MarshalState()
	if err != nil {
		return err
	}
	restored := account.New(simUser)
	if err := restored.UnmarshalState(saved); err != nil {
		return fmt.Errorf("restoring the snapshot after %d events: %w", k, err)
	}
	aggregate.Load(restored, int64(len(events)), events[k:]...)
	full := account.New(simUser)
	aggregate.Load(full, int64(len(events)), events...)
	got, err := restored.MarshalState()
	if err != nil {
		return err
	}
	want, err := full.MarshalState()
	if err != nil {
		return err
	}
	if !restored.Balances().Equal(full.Balances()) || string(got) != string(want) {
		return fmt.Errorf("a snapshot after %d of %d events, then the rest, gives another state:\nrestored %s\nreplayed %s", k, len(events), got, want)
	}
	return nil
}

const (
	sequences = 10_000
	maxSteps  = 60
	fuzzBytes = 4 * 400
)

func TestMoneyProperties(t *testing.T) {
	t.Parallel()
	n := sequences
	if testing.Short() || raceEnabled {
		n = sequences / 10
	}
	total := map[string]int{}
	events := 0
	for seed := range n {
		s, err := runSequence(rngSource{rand.New(rand.NewPCG(uint64(seed), 0x5eed))}, ledger.Postings, maxSteps)
		if err != nil {
			t.Fatalf("sequence with seed %d: %v", seed, err)
		}
		for k, v := range s.stats {
			total[k] += v
		}
		events += len(s.events)
	}
	// The property means little if the commands were mostly refused: every command must have
	// succeeded, and been refused, many times over.
	for _, name := range []string{
		"request deposit", "confirm deposit", "reject deposit", "request investment", "activate investment",
		"reject investment", "mature investment", "request withdrawal", "approve withdrawal",
		"reject withdrawal", "waive fee", "credit referral", "post adjustment", "set instruction", "redeem early", "link deposit",
	} {
		if total[name] < n/100 || total["refused "+name] < n/100 {
			t.Errorf("%q succeeded %d and was refused %d times in %d sequences: the generator misses it", name, total[name], total["refused "+name], n)
		}
	}
	for _, e := range account.Events() {
		if got := total["event "+e.EventName()]; got < n/100 {
			t.Errorf("%d %s events in %d sequences: the generator misses it", got, e.EventName(), n)
		}
	}
	t.Logf("%d sequences, %d events; %v", n, events, total)
}

// TestPropertiesCatchAWrongPosting runs the same property against a posting map with one
// deliberate mistake each, and requires that it fails: a check that cannot fail proves nothing.
func TestPropertiesCatchAWrongPosting(t *testing.T) {
	t.Parallel()
	cent := money.FromCents(1)
	mutants := map[string]postingsFunc{
		"fee posted to the wrong side": func(u string, e aggregate.Event) []ledger.Posting {
			ps := ledger.Postings(u, e)
			if _, ok := e.(account.WithdrawalApproved); ok {
				ps[2].Amount = ps[2].Amount.Neg()
			}
			return ps
		},
		"a cent lost on maturity": func(u string, e aggregate.Event) []ledger.Posting {
			ps := ledger.Postings(u, e)
			if _, ok := e.(account.InvestmentMatured); ok {
				ps[2].Amount = ps[2].Amount.Sub(cent)
				ps[1].Amount = ps[1].Amount.Add(cent)
			}
			return ps
		},
		"a rejected withdrawal paid out instead of released": func(u string, e aggregate.Event) []ledger.Posting {
			ps := ledger.Postings(u, e)
			if _, ok := e.(account.WithdrawalRejected); ok {
				ps[1].Account = ledger.Payouts
			}
			return ps
		},
		"waivers credited to held": func(u string, e aggregate.Event) []ledger.Posting {
			ps := ledger.Postings(u, e)
			if _, ok := e.(account.FeeWaived); ok {
				ps[1].Account = ledger.UserAccount(u, ledger.BookHeld)
			}
			return ps
		},
	}
	for name, wrong := range mutants {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for seed := range sequences {
				if _, err := runSequence(rngSource{rand.New(rand.NewPCG(uint64(seed), 0x5eed))}, wrong, maxSteps); err != nil {
					t.Logf("caught at seed %d: %v", seed, err)
					return
				}
			}
			t.Fatal("no sequence noticed the wrong posting")
		})
	}
}

// FuzzMoneyCommands runs the same property on sequences the fuzzer writes: each four bytes are
// one choice (go test -fuzz=FuzzMoneyCommands ./domain/ledger). Inputs are cut at fuzzBytes:
// every step replays the whole history, so a long input costs the square of its length and
// would stall the fuzzer without finding more.
func FuzzMoneyCommands(f *testing.F) {
	for seed := range 16 {
		r := rand.New(rand.NewPCG(uint64(seed), 1))
		b := make([]byte, 64+r.IntN(1024))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 2, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > fuzzBytes {
			b = b[:fuzzBytes]
		}
		if _, err := runSequence(&byteSource{b: b}, ledger.Postings, fuzzBytes); err != nil {
			t.Fatal(err)
		}
	})
}
