package account

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"clearvest/domain/aggregate"
	"clearvest/domain/money"
)

// Auditing a stream. Apply trusts history: it never fails, so any stored stream can be read.
// An audit must not trust it: balances that add up prove only that every event moved what it
// says, not that the rules would ever have let it happen (a deposit confirmed twice adds up as
// well as one confirmed once). Replay therefore asks, for every event, the decision method that
// raises it what it would have raised from the state before it, given the event's own inputs
// (the deposit, the amount received, the staff member, the time), and refuses the event when
// the method refuses or raises anything else. The rules stay in one place, the decision
// methods; there is no second copy of them to drift.

// RuleBroken is an event of a stream that the rules would not have produced.
type RuleBroken struct {
	Version int64  // the event's version in its stream; 0 when the caller does not know it
	Type    string // its stored type name
	Rule    string // the rule it breaks, in words
	Detail  string // what the rules say instead, when there is more to say than the rule
}

func (b *RuleBroken) Error() string {
	msg := b.Type + " breaks the rule: " + b.Rule
	if b.Version > 0 {
		msg = fmt.Sprintf("version %d, %s", b.Version, msg)
	}
	if b.Detail != "" {
		msg += " (" + b.Detail + ")"
	}
	return msg
}

// rules names, for the refusals an audit is likely to meet, the rule in an auditor's words; any
// other refusal is named by its message.
var rules = []struct {
	err  error
	rule string
}{
	{ErrOwnAccount, "staff never decide or correct money on their own account"},
	{ErrDepositNotFound, "a deposit is decided only after it was requested"},
	{ErrDepositDecided, "a deposit is confirmed or rejected once"},
	{ErrInvestmentNotFound, "an investment is decided, matured or redeemed only after it was requested"},
	{ErrInvestmentDecided, "an investment's hold is settled or released once"},
	{ErrNotActive, "only an active investment matures or is redeemed, once"},
	{ErrNotDue, "an investment matures on or after its end"},
	{ErrPastEnd, "an investment is redeemed early only before its end"},
	{ErrInvestmentEnded, "an ended investment takes no instruction"},
	{ErrWithdrawalNotFound, "a withdrawal is decided only after it was requested"},
	{ErrWithdrawalDecided, "a withdrawal's hold is settled or released once"},
	{ErrNotApproved, "only the fee of an approved withdrawal is waived"},
	{ErrNoFeeToWaive, "a fee is waived at most up to what was charged"},
	{ErrWaiverTooLarge, "a fee is waived at most up to what was charged"},
	{ErrReferralCredited, "a referral bonus is credited once per referred user"},
	{ErrSelfReferral, "no referral bonus for referring oneself"},
	{ErrInsufficientBalance, "a hold never exceeds the available balance"},
	{ErrAdjustmentNegative, "a correction never makes the available balance negative"},
	{ErrDuplicateID, "request and correction ids are used once"},
	{ErrDuplicateTransaction, "a deposit's transaction id is used once"},
	{ErrOutOfRange, "an investment lies within its plan's limits"},
	{ErrFeeTooHigh, "a withdrawal's fee is less than its amount"},
}

func ruleOf(err error) string {
	for _, r := range rules {
		if errors.Is(err, r.err) {
			return r.rule
		}
	}
	return "every input is valid: " + err.Error()
}

// Replay reads one money stream through the rules, event by event, oldest first.
type Replay struct {
	acc *Account
	// follow are the events the last decision raised after the one already checked (a
	// reinvestment after its maturity), which must come next, in order.
	follow []aggregate.Event
}

// NewReplay returns the replay of userID's money stream, before its first event.
func NewReplay(userID string) *Replay { return &Replay{acc: New(userID)} }

// Account is the state replayed so far. It is what Apply makes of the events, refused or not.
func (r *Replay) Account() *Account { return r.acc }

// Next checks e, the event at version of the stream, against the state before it, then applies
// it whatever the verdict, so that one bad event is reported once and the rest of the stream is
// still checked against what the books say. It returns a *RuleBroken when the rules would not
// have raised e there.
func (r *Replay) Next(version int64, e aggregate.Event) error {
	err := r.check(e)
	r.acc.Apply(e)
	if err != nil {
		err.Version, err.Type = version, e.EventName()
		return err
	}
	return nil
}

// Finish reports an event a decision raised that the stream never recorded: a reinvestment
// missing after its maturity. version is the stream's last version.
func (r *Replay) Finish(version int64) error {
	if len(r.follow) == 0 {
		return nil
	}
	want := r.follow[0]
	r.follow = nil
	return &RuleBroken{
		Version: version, Type: "end of stream",
		Rule:   "a maturity with the reinvest instruction is followed by its reinvestment",
		Detail: "the stream ends without the expected " + want.EventName(),
	}
}

func (r *Replay) check(e aggregate.Event) *RuleBroken {
	if len(r.follow) > 0 {
		want := r.follow[0]
		r.follow = r.follow[1:]
		if e.EventName() != want.EventName() {
			r.follow = nil
			return &RuleBroken{
				Rule:   "a maturity with the reinvest instruction is followed by its reinvestment",
				Detail: "expected " + want.EventName() + " first",
			}
		}
		return differs(e, want)
	}
	raised, err := r.acc.Check(e)
	if err != nil {
		return &RuleBroken{Rule: ruleOf(err), Detail: detailOf(err)}
	}
	if len(raised) == 0 {
		return &RuleBroken{Rule: "an event records a change: the rules raise nothing here"}
	}
	if raised[0].EventName() != e.EventName() {
		return &RuleBroken{Rule: "the rules raise " + raised[0].EventName() + " here"}
	}
	r.follow = raised[1:]
	return differs(e, raised[0])
}

// detailOf is err's message when it says more than the rule (the amounts involved).
func detailOf(err error) string {
	msg := err.Error()
	for _, r := range rules {
		if errors.Is(err, r.err) && r.err.Error() != msg {
			return msg
		}
	}
	return ""
}

// Check asks the decision method that raises events of e's type what it would raise now, with
// e's inputs, without changing the account: the events it would raise, or its refusal.
// Events no command raises on its own (a reinvestment follows its maturity) are refused with
// ErrReinvestmentAlone; Replay checks them against the maturity's.
func (a *Account) Check(e aggregate.Event) ([]aggregate.Event, error) {
	var raised []aggregate.Event
	a.dry = &raised
	defer func() { a.dry = nil }()
	var err error
	switch e := e.(type) {
	case DepositRequested:
		r := DepositRequest{
			DepositID: e.DepositID, TransactionID: e.TransactionID, Amount: e.Amount, Asset: e.Asset, Network: e.Network,
			OnChainAmount: e.OnChainAmount, USDRate: e.USDRate, TxHash: e.TxHash, Address: e.Address,
		}
		if e.Source == SourceChain {
			err = a.RecordChainDeposit(r, e.At)
		} else {
			err = a.RequestDeposit(r, e.At)
		}
	case DepositConfirmed:
		if e.Source == SourceChain {
			var rateAt time.Time
			if e.RateAt != nil {
				rateAt = *e.RateAt
			}
			err = a.ConfirmChainDeposit(e.DepositID, e.Received, e.Rate, rateAt, e.Confirmations, e.At)
		} else {
			err = a.ConfirmDepositCountersigned(e.DepositID, e.Received, e.Notes, e.StaffID, Countersign{ProposalID: e.ProposalID, ApproverID: e.ApprovedBy}, e.At)
		}
	case DepositRejected:
		if e.Source == SourceChain {
			err = a.RejectChainDeposit(e.DepositID, e.Notes, e.At)
		} else {
			err = a.RejectDeposit(e.DepositID, e.Notes, e.StaffID, e.At)
		}
	case DepositLinkedToChain:
		err = a.LinkDepositToChain(e.DepositID, ChainLink{ChainDepositID: e.ChainDepositID, TxHash: e.TxHash, Address: e.Address,
			Asset: e.Asset, OnChainAmount: e.OnChainAmount}, e.At)
	case InvestmentRequested:
		err = a.RequestInvestment(e.InvestmentID, e.Terms, e.Amount, e.At)
	case InvestmentActivated:
		err = a.ActivateInvestment(e.InvestmentID, e.StaffID, e.Start)
	case InvestmentRejected:
		err = a.RejectInvestment(e.InvestmentID, e.Reason, e.StaffID, e.At)
	case InvestmentMatured:
		// Whether a reinvestment was refused rests on facts outside the stream (the plan, the
		// identity check, the account's status), so the recorded refusal is taken as given; the
		// amounts are still the rules' own.
		err = a.MatureInvestmentChecked(e.InvestmentID, e.At, func(Investment, money.Money) string { return e.ReinvestRefused })
	case InvestmentInstructionSet:
		err = a.SetMaturityInstruction(e.InvestmentID, e.Instruction, e.At)
	case InvestmentRedeemed:
		err = a.RedeemEarly(e.InvestmentID, e.At)
	case InvestmentReinvested:
		err = ErrReinvestmentAlone
	case WithdrawalRequested:
		err = a.RequestWithdrawal(WithdrawalRequest{
			WithdrawalID: e.WithdrawalID, Amount: e.Amount, Fee: e.Fee, Address: e.Address, Network: e.Network, Asset: e.Asset,
		}, e.At)
	case WithdrawalApproved:
		err = a.ApproveWithdrawalCountersigned(e.WithdrawalID, Payout{TxHash: e.TxHash, OnChainAmount: e.OnChainAmount, USDRate: e.USDRate}, e.StaffID,
			Countersign{ProposalID: e.ProposalID, ApproverID: e.ApprovedBy}, e.At)
	case WithdrawalRejected:
		err = a.RejectWithdrawal(e.WithdrawalID, e.Reason, e.StaffID, e.At)
	case FeeWaived:
		err = a.WaiveFee(e.WithdrawalID, e.Amount, e.Reason, e.StaffID, e.At)
	case ReferralBonusCredited:
		err = a.CreditReferralBonus(e.ReferredUserID, e.Amount, e.At)
	case AdjustmentPosted:
		err = a.PostAdjustmentCountersigned(Adjustment{AdjustmentID: e.AdjustmentID, Amount: e.Amount, Category: e.Category, Reason: e.Reason}, e.StaffID,
			Countersign{ProposalID: e.ProposalID, ApproverID: e.ApprovedBy}, e.At)
	case FeeExemptionSet:
		err = a.SetFeeExemption(e.Exempt, e.Reason, e.StaffID, e.At)
	default:
		err = ErrUnknownEvent
	}
	if err != nil {
		return nil, err
	}
	return raised, nil
}

// Refusals only an audit meets: no command raises these events this way.
var (
	ErrReinvestmentAlone = errors.New("a reinvestment only follows the maturity of an investment with the reinvest instruction")
	ErrUnknownEvent      = errors.New("the event is not a money event")
)

var (
	moneyType   = reflect.TypeFor[money.Money]()
	timeType    = reflect.TypeFor[time.Time]()
	timePtrType = reflect.TypeFor[*time.Time]()
)

// differs compares a stored event with the one the rules raise, field by field: amounts by value
// (10.5 is 10.50), times by instant. It names the fields that differ.
func differs(stored, want aggregate.Event) *RuleBroken {
	if reflect.TypeOf(stored).Comparable() && stored == want {
		// Identical, as nearly every event of a sound log is: an audit replays millions, and the
		// walk below costs reflection on every field. Equal values held differently (a time in
		// another zone) still go through it.
		return nil
	}
	var diffs []string
	diffFields(reflect.ValueOf(stored), reflect.ValueOf(want), "", &diffs)
	if len(diffs) == 0 {
		return nil
	}
	return &RuleBroken{
		Rule:   "an event carries what the rules derive from the state before it",
		Detail: strings.Join(diffs, "; "),
	}
}

func diffFields(got, want reflect.Value, prefix string, diffs *[]string) {
	t := got.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		g, w := got.Field(i), want.Field(i)
		var diff string
		switch {
		case f.Type == moneyType:
			if gm, wm := g.Interface().(money.Money), w.Interface().(money.Money); !gm.Equal(wm) {
				diff = fmt.Sprintf("is %s, the rules give %s", gm, wm)
			}
		case f.Type == timeType:
			if gt, wt := g.Interface().(time.Time), w.Interface().(time.Time); !gt.Equal(wt) {
				diff = fmt.Sprintf("is %s, the rules give %s", gt.UTC().Format(time.RFC3339), wt.UTC().Format(time.RFC3339))
			}
		case f.Type == timePtrType:
			// An optional time (a chain deposit's rate time): both absent, or the same instant.
			gt, wt := g.Interface().(*time.Time), w.Interface().(*time.Time)
			switch {
			case gt == nil && wt == nil:
			case gt == nil || wt == nil:
				diff = fmt.Sprintf("is %v, the rules give %v", gt, wt)
			case !gt.Equal(*wt):
				diff = fmt.Sprintf("is %s, the rules give %s", gt.UTC().Format(time.RFC3339Nano), wt.UTC().Format(time.RFC3339Nano))
			}
		case f.Type.Kind() == reflect.Struct:
			diffFields(g, w, prefix+jsonName(f)+".", diffs)
		case !g.Equal(w):
			diff = fmt.Sprintf("is %q, the rules give %q", fmt.Sprint(g.Interface()), fmt.Sprint(w.Interface()))
		}
		if diff != "" {
			*diffs = append(*diffs, prefix+jsonName(f)+" "+diff)
		}
	}
}

func jsonName(f reflect.StructField) string {
	if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n != "" {
		return n
	}
	return f.Name
}
