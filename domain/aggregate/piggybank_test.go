package aggregate_test

import (
	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
)

// PiggyBank is the smallest aggregate that has real rules, to show how aggregates are written.
//
// Rules:
//   - A deposit must be more than zero.
//   - A withdrawal may not exceed the balance.
//   - Smashing the bank pays out whatever is in it; after that it accepts nothing.
type PiggyBank struct {
	aggregate.Root
	balance int64
	smashed bool
}

func NewPiggyBank() *PiggyBank { return &PiggyBank{} }

type Deposited struct{ Cents int64 }
type Withdrawn struct{ Cents int64 }
type Smashed struct{}

func (Deposited) EventName() string { return "piggybank.deposited" }
func (Withdrawn) EventName() string { return "piggybank.withdrawn" }
func (Smashed) EventName() string   { return "piggybank.smashed" }

var (
	ErrNotPositive       = domainerr.New(domainerr.Invalid, "Amount must be greater than zero")
	ErrInsufficientFunds = domainerr.New(domainerr.RuleBroken, "Not enough money in the piggy bank")
	ErrSmashed           = domainerr.New(domainerr.RuleBroken, "The piggy bank is smashed")
)

func (p *PiggyBank) Deposit(cents int64) error {
	if p.smashed {
		return ErrSmashed
	}
	if cents <= 0 {
		return ErrNotPositive
	}
	aggregate.Raise(p, Deposited{Cents: cents})
	return nil
}

func (p *PiggyBank) Withdraw(cents int64) error {
	if p.smashed {
		return ErrSmashed
	}
	if cents <= 0 {
		return ErrNotPositive
	}
	if cents > p.balance {
		return ErrInsufficientFunds
	}
	aggregate.Raise(p, Withdrawn{Cents: cents})
	return nil
}

func (p *PiggyBank) Smash() error {
	if p.smashed {
		return ErrSmashed
	}
	if p.balance > 0 {
		if err := p.Withdraw(p.balance); err != nil {
			return err
		}
	}
	aggregate.Raise(p, Smashed{})
	return nil
}

func (p *PiggyBank) Balance() int64 { return p.balance }

func (p *PiggyBank) Apply(e aggregate.Event) {
	switch e := e.(type) {
	case Deposited:
		p.balance += e.Cents
	case Withdrawn:
		p.balance -= e.Cents
	case Smashed:
		p.smashed = true
	}
}
