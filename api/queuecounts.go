package api

import (
	"context"

	"clearvest/api/apigen"
)

// countOne is the smallest page a paged queue serves: its Total is the count, and reading it
// keeps "what waits in this queue" defined by the queue's own query.
var countOne = 1

func (s *server) GetQueueCounts(ctx context.Context, _ apigen.GetQueueCountsRequestObject) (apigen.GetQueueCountsResponseObject, error) {
	if _, err := s.caller(ctx); err != nil {
		return nil, err
	}
	var out apigen.GetQueueCounts200JSONResponse
	// Each queue is counted only where this server runs it; the navigation leaves out the rest.
	counts := []struct {
		on    bool
		into  **int
		count func() (int, error)
	}{
		{s.money != nil, &out.Deposits, func() (int, error) { return s.money.DepositsForStaff(ctx) }},
		{s.money != nil, &out.Withdrawals, func() (int, error) {
			p, err := s.money.PendingWithdrawalPage(ctx, "", &countOne)
			return p.Total, err
		}},
		{s.money != nil, &out.Investments, func() (int, error) {
			p, err := s.money.PendingInvestmentPage(ctx, "", &countOne)
			return p.Total, err
		}},
		{s.kyc != nil, &out.IdentityChecks, func() (int, error) {
			p, _, err := s.kyc.QueuePage(ctx, "", &countOne)
			return p.Total, err
		}},
		{s.approvals != nil, &out.Approvals, func() (int, error) { return s.approvals.PendingCount(ctx) }},
		{s.support != nil, &out.SupportTickets, func() (int, error) { return s.support.Waiting(ctx) }},
		{s.community != nil, &out.Testimonials, func() (int, error) { return s.community.PendingCount(ctx) }},
	}
	for _, c := range counts {
		if !c.on {
			continue
		}
		n, err := c.count()
		if err != nil {
			return nil, err
		}
		*c.into = &n
	}
	return out, nil
}
