package api

import (
	"context"

	"clearvest/api/apigen"
	"clearvest/domain/domainerr"
	"clearvest/domain/plan"
	projplans "clearvest/projections/plans"
)

// errPlansUnavailable answers the plan operations of a server wired without the plan catalogue
// (tests of other parts).
var errPlansUnavailable = domainerr.New(domainerr.RuleBroken, "Plans are not available yet.")

// ListPlans lists the active plans with their terms, the annualised rate and a worked example for
// the plan's minimum. The figures come from the domain's functions (domain/plan), so the page
// shows exactly what an investment under these terms would pay.
func (s *server) ListPlans(ctx context.Context, _ apigen.ListPlansRequestObject) (apigen.ListPlansResponseObject, error) {
	if s.plans == nil {
		return nil, errPlansUnavailable
	}
	list, err := s.plans.Active(ctx)
	if err != nil {
		return nil, err
	}
	out := apigen.ListPlans200JSONResponse{Plans: make([]apigen.Plan, 0, len(list))}
	for _, p := range list {
		out.Plans = append(out.Plans, planJSON(p))
	}
	return out, nil
}

func planJSON(p projplans.Plan) apigen.Plan {
	t := p.Terms
	ex := t.ExampleFor(t.Min)
	return apigen.Plan{
		UnderscoreId: p.ID, Name: p.Name, Min: t.Min.String(), Max: t.Max.String(), TermDays: t.TermDays,
		TermRate: t.RateText(), Apr: t.APRPercent().StringFixed(plan.APRDecimals), Version: p.Version,
		Example: apigen.PlanExample{Amount: ex.Amount.String(), Return: ex.Return.String(), Payout: ex.Payout.String(), MaturityDays: ex.MaturityDays},
	}
}
