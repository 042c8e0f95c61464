package money

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"clearvest/app/approvals"
	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/domain/money"
	"clearvest/domain/proposal"
)

// DefaultCorrectionThreshold is when a balance correction needs a second staff member if the
// configuration sets no threshold: above $500.00, added or deducted.
var DefaultCorrectionThreshold = money.MustParse("500.00")

// Directions of a correction.
const (
	DirectionAdd    = "add"
	DirectionDeduct = "deduct"
)

// Errors of corrections, returns and fees.
var (
	ErrInvalidDirection = fieldError(domainerr.Invalid, "direction", "Please choose whether to add or deduct.")
	// ErrReturnsFixed answers every attempt to edit returns: they follow the captured terms.
	ErrReturnsFixed = domainerr.New(domainerr.RuleBroken, "Returns follow the plan terms captured when the money was invested "+
		"(rate, term and dates) and cannot be edited. To put a mistake right, post a balance correction with a reason.")
	// ErrFeeAddition refuses raising a fee by hand: fees come only from the published schedule.
	ErrFeeAddition = fieldError(domainerr.RuleBroken, "direction", "Fees come from the published fee schedule.")
	// ErrWithdrawalRequired asks which withdrawal's fee a waiver refunds.
	ErrWithdrawalRequired = fieldError(domainerr.Invalid, "withdrawalId", "Please choose the withdrawal whose fee to waive.")
)

// CorrectionInput is a staff correction of a user's available balance.
type CorrectionInput struct {
	UserID    string
	Direction string // DirectionAdd or DirectionDeduct
	Amount    string // USD, positive
	Category  string
	Reason    string
}

// correctionThreshold is the threshold in force.
func (s *Service) correctionThreshold() money.Money {
	if t := s.cfg.Thresholds.CorrectionThreshold; t.IsPositive() {
		return t
	}
	return DefaultCorrectionThreshold
}

// PostCorrection adds to or deducts from a user's available balance (account.AdjustmentPosted),
// with a category and a reason the user sees. Above the correction threshold nothing moves yet:
// the correction becomes a proposal (Decision.ProposalID) that a second admin approves. A
// deduction never takes the available balance below zero, and the check runs before a proposal
// opens as well as when it is carried out.
func (s *Service) PostCorrection(ctx context.Context, a Actor, in CorrectionInput) (Decision, error) {
	adj, err := s.correction(in)
	if err != nil {
		return Decision{}, err
	}
	userID := strings.TrimSpace(in.UserID)
	p, err := s.partyFor(ctx, a, userID)
	if err != nil {
		return Decision{}, err
	}
	// What the command would decide now, without deciding it: a refusal is answered before any
	// proposal opens.
	if err := s.readAccount(ctx, userID, func(acc *account.Account) error {
		_, err := acc.Check(account.AdjustmentPosted{AdjustmentID: adj.AdjustmentID, Amount: adj.Amount, Category: adj.Category,
			Reason: adj.Reason, StaffID: a.UserID, At: s.clock.Now()})
		return err
	}); err != nil {
		return Decision{}, err
	}
	size := adj.Amount
	if size.IsNegative() {
		size = size.Neg()
	}
	if t := s.correctionThreshold(); t.LessThan(size) && s.approvals != nil {
		dir := DirectionAdd
		if adj.Amount.IsNegative() {
			dir = DirectionDeduct
		}
		return s.propose(ctx, a, approvals.Request{Kind: proposal.KindBalanceCorrection, SubjectID: adj.AdjustmentID, UserID: userID,
			Amount: size, Why: "The correction is above " + t.Dollars() + ".", Reason: adj.Reason,
			Params: map[string]string{"direction": dir, "amount": adj.Amount.String(), "category": string(adj.Category)}})
	}
	pos, err := s.decideOn(ctx, a, p, func(acc *account.Account, now time.Time) error {
		return acc.PostAdjustment(adj, a.UserID, now)
	}, noMessage)
	return Decision{Position: pos}, err
}

// correction reads a correction's input into an adjustment with a new id.
func (s *Service) correction(in CorrectionInput) (account.Adjustment, error) {
	dir := strings.TrimSpace(in.Direction)
	if dir != DirectionAdd && dir != DirectionDeduct {
		return account.Adjustment{}, ErrInvalidDirection
	}
	amount, err := money.Parse(strings.TrimSpace(in.Amount))
	if err != nil {
		return account.Adjustment{}, err
	}
	if _, err := money.Positive(amount); err != nil {
		return account.Adjustment{}, err
	}
	if err := s.checkCeiling(amount, "amount"); err != nil {
		return account.Adjustment{}, err
	}
	cat := account.Category(strings.TrimSpace(in.Category))
	if !cat.Valid() {
		return account.Adjustment{}, account.ErrInvalidCategory
	}
	if strings.TrimSpace(in.Reason) == "" {
		return account.Adjustment{}, account.ErrReasonRequired
	}
	if dir == DirectionDeduct {
		amount = amount.Neg()
	}
	return account.Adjustment{AdjustmentID: uuid.NewString(), Amount: amount, Category: cat, Reason: in.Reason}, nil
}

// correctionApproved posts a proposed correction, countersigned by approver, in the approval's
// transaction. The balance is checked again: a deduction that no longer fits is refused, and the
// proposal stays open for a rejection.
func (s *Service) correctionApproved(ctx context.Context, approver approvals.Actor, p proposal.Proposal) (int64, error) {
	amount, err := money.Parse(p.Params["amount"])
	if err != nil {
		return 0, err
	}
	adj := account.Adjustment{AdjustmentID: p.SubjectID, Amount: amount, Category: account.Category(p.Params["category"]), Reason: p.Reason}
	a := Actor{UserID: approver.UserID, Role: approver.Role, IP: approver.IP}
	c := account.Countersign{ProposalID: p.ProposalID, ApproverID: approver.UserID}
	return s.decideFor(ctx, a, p.UserID, func(acc *account.Account, now time.Time) error {
		return acc.PostAdjustmentCountersigned(adj, p.ProposerID, c, now)
	}, noMessage)
}

func noMessage(*command.Writes, *account.Account, *identity.User) error { return nil }

// EditReturns answers every attempt to edit a user's returns: they are fixed by the captured
// plan terms.
func (s *Service) EditReturns(context.Context, Actor, string) error { return ErrReturnsFixed }

// StaffMoney is what the staff pages of one user's money show, read from the account itself.
type StaffMoney struct {
	UserID      string
	Name, Email string
	Balances    account.Balances
	Investments []account.Investment
	Withdrawals []account.Withdrawal
	Exemption   account.FeeExemptionSet
	// ExemptionSet is false when the exemption was never turned on.
	ExemptionSet        bool
	CorrectionThreshold money.Money
}

// UserMoney returns a user's balances, investments with their captured terms, withdrawals with
// their fees and waivers, and the fee exemption, as the account stands now.
func (s *Service) UserMoney(ctx context.Context, userID string) (StaffMoney, error) {
	userID = strings.TrimSpace(userID)
	u, err := s.user(ctx, userID)
	if err != nil {
		return StaffMoney{}, err
	}
	out := StaffMoney{UserID: userID, Name: u.Profile().Name, Email: u.Email(), CorrectionThreshold: s.correctionThreshold()}
	err = s.readAccount(ctx, userID, func(acc *account.Account) error {
		out.Balances, out.Investments, out.Withdrawals = acc.Balances(), acc.Investments(), acc.Withdrawals()
		out.Exemption, out.ExemptionSet = acc.FeeExemption()
		return nil
	})
	if err != nil {
		return StaffMoney{}, err
	}
	return out, nil
}

// FeeChange is a staff change of a fee on a user's account: a deduction refunds (waives) part
// or all of the fee charged on one approved withdrawal; an addition is refused.
type FeeChange struct {
	UserID       string
	WithdrawalID string
	Direction    string // DirectionDeduct (a waiver) or DirectionAdd (refused)
	Amount       string
	Reason       string
}

// ChangeFee waives a fee (account.FeeWaived): the amount goes back to the user's available
// balance. Raising a fee by hand is refused: fees come from the published schedule.
func (s *Service) ChangeFee(ctx context.Context, a Actor, in FeeChange) (int64, error) {
	switch strings.TrimSpace(in.Direction) {
	case DirectionDeduct:
	case DirectionAdd:
		return 0, ErrFeeAddition
	default:
		return 0, ErrInvalidDirection
	}
	amount, err := money.Parse(strings.TrimSpace(in.Amount))
	if err != nil {
		return 0, err
	}
	id := strings.TrimSpace(in.WithdrawalID)
	if id == "" {
		return 0, ErrWithdrawalRequired
	}
	owner, err := s.withdrawalOwner(ctx, id)
	if err != nil {
		return 0, err
	}
	if owner != strings.TrimSpace(in.UserID) {
		return 0, ErrWithdrawalNotFound
	}
	return s.decideFor(ctx, a, owner, func(acc *account.Account, now time.Time) error {
		return acc.WaiveFee(id, amount, in.Reason, a.UserID, now)
	}, noMessage)
}

// SetFeeExemption turns a user's withdrawal fee exemption on or off, with a reason
// (account.FeeExemptionSet). While it is on, quotes and withdrawals charge no fee.
func (s *Service) SetFeeExemption(ctx context.Context, a Actor, userID string, exempt bool, reason string) (int64, error) {
	return s.decideFor(ctx, a, strings.TrimSpace(userID), func(acc *account.Account, now time.Time) error {
		return acc.SetFeeExemption(exempt, reason, a.UserID, now)
	}, noMessage)
}
