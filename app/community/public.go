package community

import (
	"clearvest/platform/pgread"
	"context"
	"fmt"
	"strings"
	"time"

	"clearvest/domain/community"
	"clearvest/domain/money"
	"clearvest/projections/activity"
	"clearvest/projections/investments"
	"clearvest/projections/referrals"
)

// tickerLimit is how many recent activities the ticker gets.
const tickerLimit = 20

// Activity is one anonymised activity for the public ticker. Message never names anyone nor
// says an amount: an amount next to a country and a time could point at one person.
type Activity struct {
	ID      int64
	Kind    string
	Message string
	At      time.Time
}

// ActivityMessage words an activity: "An investor from Germany started a Standard plan".
// An unknown country reads "An investor".
func ActivityMessage(kind, plan, countryCode string) string {
	who := "An investor"
	if name := countryName(countryCode); name != "" {
		who += " from " + name
	}
	planPart := "a plan"
	if plan != "" {
		planPart = article(plan) + " " + plan + " plan"
	}
	switch kind {
	case activity.KindDepositConfirmed:
		return who + " funded their wallet"
	case activity.KindInvestmentStarted:
		return who + " started " + planPart
	case activity.KindInvestmentRenewed:
		return who + " renewed " + planPart
	case activity.KindInvestmentMatured:
		return fmt.Sprintf("%s completed %s", who, planPart)
	}
	return ""
}

// article is "an" before a vowel ("an Elite plan"), else "a".
func article(word string) string {
	if strings.ContainsRune("AEIOUaeiou", []rune(word)[0]) {
		return "an"
	}
	return "a"
}

// Activity returns the recent activities, newest first.
func (s *Service) Activity(ctx context.Context) ([]Activity, error) {
	list, err := activity.Recent(ctx, pgread.On(ctx, s.pool), tickerLimit)
	if err != nil {
		return nil, err
	}
	out := make([]Activity, 0, len(list))
	for _, it := range list {
		if msg := ActivityMessage(it.Kind, it.Plan, it.Country); msg != "" {
			out = append(out, Activity{ID: it.ID, Kind: it.Kind, Message: msg, At: it.At})
		}
	}
	return out, nil
}

// Stats are the public counts as shown: rounded down, nil when hidden.
type Stats struct {
	Investors *int
	Countries *int
}

// Stats reads the counts and rounds them for display (community.DisplayFloor).
func (s *Service) Stats(ctx context.Context) (Stats, error) {
	c, err := activity.Totals(ctx, pgread.On(ctx, s.pool))
	if err != nil {
		return Stats{}, err
	}
	var out Stats
	if n, ok := community.DisplayFloor(c.Investors, s.cfg.MinInvestors); ok {
		out.Investors = &n
	}
	if n, ok := community.DisplayFloor(c.Countries, s.cfg.MinCountries); ok {
		out.Countries = &n
	}
	return out, nil
}

// Levels are the member levels, lowest first.
func (s *Service) Levels() []community.Level { return s.cfg.Levels }

// Badge is a user's standing and what it rests on.
type Badge struct {
	community.Standing
	Invested  money.Money
	Referrals int
}

// Badge computes userID's member level from the investments and referrals read models.
func (s *Service) Badge(ctx context.Context, userID string) (Badge, error) {
	invested, err := investments.LifetimeInvested(ctx, pgread.On(ctx, s.pool), userID)
	if err != nil {
		return Badge{}, err
	}
	n, err := referrals.QualifiedCount(ctx, pgread.On(ctx, s.pool), userID)
	if err != nil {
		return Badge{}, err
	}
	return Badge{Standing: community.StandingOf(s.cfg.Levels, invested, n), Invested: invested, Referrals: n}, nil
}
