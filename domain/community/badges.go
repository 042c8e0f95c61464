// Package community holds the pure rules of Clearvest's social proof: member levels (badges)
// and how public counts are rounded for display. Nothing here reads data; callers pass in what
// the read models say.
package community

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"clearvest/domain/money"
)

// Level is one member level and what it takes: at least MinInvested invested over the
// investor's lifetime (investments that were activated, whatever happened to them since) and
// at least MinReferrals qualified referrals (referred users whose first deposit was confirmed).
type Level struct {
	Name         string
	MinInvested  money.Money
	MinReferrals int
}

// Level names, lowest first.
const (
	Member = "member"
	Leader = "leader"
	Expert = "expert"
	Master = "master"
)

// DefaultLevels are the levels when the operator configures none. Member asks nothing: every
// signed-in user holds it.
func DefaultLevels() []Level {
	return []Level{
		{Name: Member, MinInvested: money.Zero},
		{Name: Leader, MinInvested: money.MustParse("1000"), MinReferrals: 1},
		{Name: Expert, MinInvested: money.MustParse("5000"), MinReferrals: 3},
		{Name: Master, MinInvested: money.MustParse("20000"), MinReferrals: 10},
	}
}

// ValidateLevels checks a level list: the four names in order, member asking nothing, and
// each level asking at least what the one before asks (so holding a level means holding every
// level below it).
func ValidateLevels(levels []Level) error {
	names := []string{Member, Leader, Expert, Master}
	if len(levels) != len(names) {
		return fmt.Errorf("want the %d levels %s", len(names), strings.Join(names, ", "))
	}
	for i, l := range levels {
		if l.Name != names[i] {
			return fmt.Errorf("level %d is %q, want %q", i+1, l.Name, names[i])
		}
		if l.MinInvested.IsNegative() || l.MinReferrals < 0 {
			return fmt.Errorf("%s: criteria cannot be negative", l.Name)
		}
		if i == 0 {
			if !l.MinInvested.IsZero() || l.MinReferrals != 0 {
				return errors.New("member must ask nothing: every user holds it")
			}
			continue
		}
		prev := levels[i-1]
		if l.MinInvested.LessThan(prev.MinInvested) || l.MinReferrals < prev.MinReferrals {
			return fmt.Errorf("%s asks less than %s", l.Name, prev.Name)
		}
		if l.MinInvested.Equal(prev.MinInvested) && l.MinReferrals == prev.MinReferrals {
			return fmt.Errorf("%s asks the same as %s", l.Name, prev.Name)
		}
	}
	return nil
}

// Criterion is how far an investor is on one criterion of the next level.
type Criterion struct {
	Have, Need decimal.Decimal
}

// Done reports whether the criterion is met.
func (c Criterion) Done() bool { return c.Have.Cmp(c.Need) >= 0 }

// fraction is Have/Need capped at 1; a criterion that needs nothing is met.
func (c Criterion) fraction() decimal.Decimal {
	if c.Need.Sign() <= 0 || c.Done() {
		return decimal.NewFromInt(1)
	}
	return c.Have.Div(c.Need)
}

// Standing is an investor's badge and their way to the next one.
type Standing struct {
	Current Level
	// Next is nil at the top level.
	Next      *Level
	Invested  Criterion // toward Next; zero at the top level
	Referrals Criterion
	// Percent is the progress toward Next, 0 to 100, rounded down: the mean of the two criteria,
	// each counted at most in full, so over-delivering on one never hides the other. 100 at the
	// top level.
	Percent int
}

// StandingOf places an investor with invested lifetime and referrals qualified referrals on
// levels (as ValidateLevels accepts). A level is held when both of its criteria are met.
func StandingOf(levels []Level, invested money.Money, referrals int) Standing {
	cur := 0
	for i, l := range levels {
		if invested.Cmp(l.MinInvested) >= 0 && referrals >= l.MinReferrals {
			cur = i
		} else {
			break
		}
	}
	s := Standing{Current: levels[cur], Percent: 100}
	if cur+1 == len(levels) {
		return s
	}
	next := levels[cur+1]
	s.Next = &next
	s.Invested = Criterion{Have: invested.Decimal(), Need: next.MinInvested.Decimal()}
	s.Referrals = Criterion{Have: decimal.NewFromInt(int64(referrals)), Need: decimal.NewFromInt(int64(next.MinReferrals))}
	mean := s.Invested.fraction().Add(s.Referrals.fraction()).Div(decimal.NewFromInt(2))
	s.Percent = int(mean.Mul(decimal.NewFromInt(100)).Floor().IntPart())
	// Both criteria met would mean the next level is held; a mean of 100 cannot happen here,
	// but a bar at 100 % for a level not held would mislead, so it is capped.
	s.Percent = min(s.Percent, 99)
	return s
}
