package money

import (
	"context"
	"strings"
	"time"

	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/domain/money"
)

// claimReinvestments records the account of every investment this command's maturities
// reinvested into, so it is found by id like one requested.
func claimReinvestments(w *command.Writes, acc *account.Account, userID string, at time.Time) {
	for _, e := range acc.Changes() {
		if r, ok := e.(account.InvestmentReinvested); ok {
			w.Add(claimInvestmentSQL, r.NewInvestmentID, userID, at)
		}
	}
}

// matured lists the investments this command's events matured, in order.
func matured(acc *account.Account) []string {
	var ids []string
	for _, e := range acc.Changes() {
		if m, ok := e.(account.InvestmentMatured); ok {
			ids = append(ids, m.InvestmentID)
		}
	}
	return ids
}

// reinvested reports whether a matured investment's payout went into a new investment.
func reinvested(inv account.Investment) bool { return inv.ReinvestedAs != "" }

// Redemption is what an early redemption pays back and what it forfeits.
type Redemption struct {
	InvestmentID string
	Principal    money.Money
	Forfeited    money.Money
	Position     int64
}

// InstructionSet is an investment with its maturity instruction.
type InstructionSet struct {
	Investment Investment
	Position   int64
}

// ownInvestment finds an investment of the caller's; anyone else's, even for staff, is a 404:
// what happens to an investor's money at maturity is theirs to say.
func (s *Service) ownInvestment(ctx context.Context, a Actor, investmentID string) (string, error) {
	userID, id, err := s.owner(ctx, investmentID)
	if err != nil {
		return "", err
	}
	if userID != a.UserID {
		return "", ErrInvestmentNotFound
	}
	return id, nil
}

// SetMaturityInstruction chooses what happens at maturity to a pending or active investment of
// the caller's: "payout" (the default) or "reinvest".
func (s *Service) SetMaturityInstruction(ctx context.Context, a Actor, investmentID, instruction string) (InstructionSet, error) {
	id, err := s.ownInvestment(ctx, a, investmentID)
	if err != nil {
		return InstructionSet{}, err
	}
	ins := account.Instruction(strings.ToLower(strings.TrimSpace(instruction)))
	var inv account.Investment
	res, err := command.Execute(ctx, s.commands, accountStream(a.UserID), account.NewFor(a.UserID), metaFor(a), func(acc *account.Account) error {
		if err := acc.SetMaturityInstruction(id, ins, s.clock.Now()); err != nil {
			return err
		}
		inv, _ = acc.Investment(id)
		return nil
	})
	if err != nil {
		return InstructionSet{}, err
	}
	return InstructionSet{Investment: fromInvestment(a.UserID, inv), Position: res.Position}, nil
}

// PreviewEarlyRedemption says what ending an active investment of the caller's now would pay
// back and forfeit, changing nothing.
func (s *Service) PreviewEarlyRedemption(ctx context.Context, a Actor, investmentID string) (Redemption, error) {
	id, err := s.ownInvestment(ctx, a, investmentID)
	if err != nil {
		return Redemption{}, err
	}
	var r account.Redemption
	if err := s.readAccount(ctx, a.UserID, func(acc *account.Account) error {
		r, err = acc.EarlyRedemption(id, s.clock.Now())
		return err
	}); err != nil {
		return Redemption{}, err
	}
	return Redemption{InvestmentID: r.InvestmentID, Principal: r.Principal, Forfeited: r.Forfeited}, nil
}

// RedeemEarly ends an active investment of the caller's now: the principal goes back to the
// available balance and the return is forfeited.
func (s *Service) RedeemEarly(ctx context.Context, a Actor, investmentID string) (Redemption, error) {
	id, err := s.ownInvestment(ctx, a, investmentID)
	if err != nil {
		return Redemption{}, err
	}
	var out Redemption
	res, err := command.Execute(ctx, s.commands, accountStream(a.UserID), account.NewFor(a.UserID), metaFor(a), func(acc *account.Account) error {
		now := s.clock.Now()
		r, err := acc.EarlyRedemption(id, now)
		if err != nil {
			return err
		}
		out = Redemption{InvestmentID: r.InvestmentID, Principal: r.Principal, Forfeited: r.Forfeited}
		return acc.RedeemEarly(id, now)
	})
	if err != nil {
		return Redemption{}, err
	}
	out.Position = res.Position
	return out, nil
}
