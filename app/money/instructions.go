package money

import (
	"context"
	"time"

	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/domain/domainerr"
	"clearvest/domain/money"
)

// claimReinvestments records the account of every investment a maturity reinvested into, so it
// can be found by id like one requested.
func (s *Service) claimReinvestments(ctx context.Context, tx *command.Tx, acc *account.Account, userID string, at time.Time) error {
	return nil
}

// reinvested reports whether a matured investment's payout went into a new investment.
func reinvested(inv account.Investment) bool { return false }

// Redemption is what an early redemption pays back and what it forfeits.
type Redemption struct {
	InvestmentID string
	Principal    money.Money
	Forfeited    money.Money
	Position     int64
}

// InstructionSet is an investment with its new maturity instruction.
type InstructionSet struct {
	Investment Investment
	Position   int64
}

var errNotYet = domainerr.New(domainerr.RuleBroken, "This is not available yet.")

// SetMaturityInstruction chooses what happens at maturity.
func (s *Service) SetMaturityInstruction(ctx context.Context, a Actor, investmentID, instruction string) (InstructionSet, error) {
	return InstructionSet{}, errNotYet
}

// PreviewEarlyRedemption says what ending the investment now would pay back.
func (s *Service) PreviewEarlyRedemption(ctx context.Context, a Actor, investmentID string) (Redemption, error) {
	return Redemption{}, errNotYet
}

// RedeemEarly ends an active investment now.
func (s *Service) RedeemEarly(ctx context.Context, a Actor, investmentID string) (Redemption, error) {
	return Redemption{}, errNotYet
}
