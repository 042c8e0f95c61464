package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	appplans "clearvest/app/plans"
	"clearvest/domain/money"
	"clearvest/domain/plan"
	"clearvest/eventstore"
)

// The demo plans give a new development installation a catalogue to look at: the four plans of
// the product brief with modest terms (docs/plans.md, "Demo plans"). They are ordinary plans,
// created through the plan service like any other; only the seed that creates them is for
// development.

type demoPlan struct {
	name, min, max string
	days           int
	rate           string // for the whole term
}

var demoPlans = []demoPlan{
	{name: "Basic", min: "100", max: "250", days: 30, rate: "0.0040"},    // 4.87 % a year
	{name: "Standard", min: "300", max: "500", days: 60, rate: "0.0100"}, // 6.08 %
	{name: "Premium", min: "600", max: "1000", days: 90, rate: "0.0170"}, // 6.89 %
	{name: "Elite", min: "1500", max: "5000", days: 180, rate: "0.0390"}, // 7.91 %
}

func (d demoPlan) terms() (plan.Terms, error) {
	rate, err := plan.ParseRate(d.rate)
	if err != nil {
		return plan.Terms{}, err
	}
	t := plan.Terms{Min: money.MustParse(d.min), Max: money.MustParse(d.max), TermDays: d.days, TermRate: rate}
	return t, t.Validate()
}

// seedDemoPlans creates the demo plans when the catalogue has never had a plan, and does nothing
// otherwise: a restart creates nothing twice, and plans an operator withdrew or changed are left
// as they are. Two processes starting at once on one database both find the catalogue empty;
// names are unique, so the second one's plans are refused and skipped.
func seedDemoPlans(ctx context.Context, svc *appplans.Service, logger *slog.Logger) error {
	empty, err := svc.Empty(ctx)
	if err != nil || !empty {
		return err
	}
	created := 0
	for _, d := range demoPlans {
		t, err := d.terms()
		if err != nil {
			return fmt.Errorf("demo plan %s: %w", d.name, err)
		}
		_, err = svc.Create(ctx, eventstore.Metadata{ActorRole: "operator"}, appplans.CreateInput{Name: d.name, Terms: t, Active: true})
		if errors.Is(err, appplans.ErrNameTaken) {
			continue
		}
		if err != nil {
			return fmt.Errorf("creating demo plan %s: %w", d.name, err)
		}
		created++
	}
	if created > 0 {
		logger.Info("created the demo plans (development only)", "plans", created)
	}
	return nil
}
