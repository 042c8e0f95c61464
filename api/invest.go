package api

import (
	"context"
	"errors"
	"time"

	"clearvest/api/apigen"
	appmoney "clearvest/app/money"
	"clearvest/domain/account"
	"clearvest/domain/plan"
	"clearvest/domain/reference"
)

const (
	msgInvestmentApproved = "Investment approved successfully!"
	msgInvestmentRejected = "Investment rejected successfully!"
)

func (s *server) GetInvestmentQuote(ctx context.Context, req apigen.GetInvestmentQuoteRequestObject) (apigen.GetInvestmentQuoteResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	q, err := s.money.QuoteInvestment(ctx, a, appmoney.InvestInput{Amount: req.Params.Amount, PlanName: req.Params.PlanName})
	if err != nil {
		return nil, err
	}
	return apigen.GetInvestmentQuote200JSONResponse(investmentQuoteJSON(q)), nil
}

func investmentQuoteJSON(q appmoney.InvestmentQuote) apigen.InvestmentQuote {
	return apigen.InvestmentQuote{
		Plan: q.PlanName, PlanVersion: q.PlanVersion, Amount: q.Amount.String(), TermDays: q.Terms.TermDays,
		TermRate: q.Terms.RateText(), Apr: q.Terms.APRPercent().StringFixed(plan.APRDecimals), Return: q.Return.String(),
		Payout: q.Payout.String(), MaturesAt: q.MaturesAt, Available: q.Available.String(),
	}
}

func (s *server) StartInvestment(ctx context.Context, req apigen.StartInvestmentRequestObject) (apigen.StartInvestmentResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	created, err := s.money.StartInvestment(ctx, a, appmoney.InvestInput{Amount: req.Body.Amount, PlanName: req.Body.PlanName,
		PlanVersion: req.Body.PlanVersion})
	if changed, ok := errors.AsType[*appmoney.PlanChangedError](err); ok {
		q := investmentQuoteJSON(changed.Quote)
		return nil, detailed(err, func(b *apigen.Error) { b.InvestmentQuote = &q })
	}
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, created.Position)
	return apigen.StartInvestment200JSONResponse(s.investmentJSON(created.Investment, false)), nil
}

func (s *server) GetInvestmentHistory(ctx context.Context, _ apigen.GetInvestmentHistoryRequestObject) (apigen.GetInvestmentHistoryResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.money.Investments(ctx, a)
	if err != nil {
		return nil, err
	}
	out := apigen.GetInvestmentHistory200JSONResponse{AsOf: s.money.Now(), Investments: make([]apigen.Investment, 0, len(list))}
	for _, inv := range list {
		out.Investments = append(out.Investments, s.investmentJSON(inv, false))
	}
	return out, nil
}

func (s *server) GetInvestment(ctx context.Context, req apigen.GetInvestmentRequestObject) (apigen.GetInvestmentResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	inv, err := s.money.Investment(ctx, a, req.InvestmentId)
	if err != nil {
		return nil, err
	}
	return apigen.GetInvestment200JSONResponse(s.investmentJSON(inv, a.Role.IsStaff())), nil
}

func (s *server) GetPendingInvestments(ctx context.Context, req apigen.GetPendingInvestmentsRequestObject) (apigen.GetPendingInvestmentsResponseObject, error) {
	if _, err := s.moneyCaller(ctx); err != nil {
		return nil, err
	}
	page, err := s.money.PendingInvestmentPage(ctx, str(req.Params.Cursor), req.Params.Limit)
	if err != nil {
		return nil, err
	}
	// Ages are wall-clock waits of real people, so they are measured on the system clock.
	now := time.Now().UTC()
	out := apigen.GetPendingInvestments200JSONResponse{AsOf: now, Total: page.Total, NextCursor: nextCursor(page.NextCursor),
		PendingInvestments: make([]apigen.InvestmentQueueItem, 0, len(page.Items))}
	for _, inv := range page.Items {
		out.PendingInvestments = append(out.PendingInvestments, apigen.InvestmentQueueItem{Investment: s.investmentJSON(inv, true),
			AgeSeconds: max(0, int64(now.Sub(inv.RequestedAt)/time.Second))})
	}
	return out, nil
}

func (s *server) ApproveInvestment(ctx context.Context, req apigen.ApproveInvestmentRequestObject) (apigen.ApproveInvestmentResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	pos, err := s.money.ApproveInvestment(ctx, a, req.InvestmentId)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.ApproveInvestment200JSONResponse{Message: msgInvestmentApproved}, nil
}

func (s *server) RejectInvestment(ctx context.Context, req apigen.RejectInvestmentRequestObject) (apigen.RejectInvestmentResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	pos, err := s.money.RejectInvestment(ctx, a, req.InvestmentId, req.Body.Reason)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.RejectInvestment200JSONResponse{Message: msgInvestmentRejected}, nil
}

func (s *server) SettleMaturedInvestments(ctx context.Context, _ apigen.SettleMaturedInvestmentsRequestObject) (apigen.SettleMaturedInvestmentsResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	settled, err := s.money.SettleDue(ctx, a.UserID)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, settled.Position)
	out := apigen.SettleMaturedInvestments200JSONResponse{Settled: make([]apigen.Investment, 0, len(settled.Investments))}
	for _, inv := range settled.Investments {
		out.Settled = append(out.Settled, s.investmentJSON(inv, false))
	}
	return out, nil
}

func (s *server) SetMaturityInstruction(ctx context.Context, req apigen.SetMaturityInstructionRequestObject) (apigen.SetMaturityInstructionResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	res, err := s.money.SetMaturityInstruction(ctx, a, req.InvestmentId, req.Body.Instruction)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, res.Position)
	return apigen.SetMaturityInstruction200JSONResponse(s.investmentJSON(res.Investment, false)), nil
}

func (s *server) PreviewEarlyRedemption(ctx context.Context, req apigen.PreviewEarlyRedemptionRequestObject) (apigen.PreviewEarlyRedemptionResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.money.PreviewEarlyRedemption(ctx, a, req.InvestmentId)
	if err != nil {
		return nil, err
	}
	return apigen.PreviewEarlyRedemption200JSONResponse(redemptionJSON(r)), nil
}

func (s *server) RedeemEarly(ctx context.Context, req apigen.RedeemEarlyRequestObject) (apigen.RedeemEarlyResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.money.RedeemEarly(ctx, a, req.InvestmentId)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, r.Position)
	return apigen.RedeemEarly200JSONResponse(redemptionJSON(r)), nil
}

func redemptionJSON(r appmoney.Redemption) apigen.EarlyRedemption {
	return apigen.EarlyRedemption{InvestmentId: r.InvestmentID, Principal: r.Principal.String(), Forfeited: r.Forfeited.String()}
}

// investmentJSON maps an investment onto the specification; withUser adds the investor (staff
// views). While an investment waits for staff, maturityAmount is the return its captured terms
// give (approval fixes the same figure); after, it is the return fixed at approval. Progress and
// the accrued estimate are read on the app clock, which decides maturity.
func (s *server) investmentJSON(inv appmoney.Investment, withUser bool) apigen.Investment {
	now := s.money.Now()
	t := inv.PlanTerms()
	ret := inv.Return
	if inv.Status == account.StatusPending {
		ret = t.Return(inv.Amount)
	}
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	out := apigen.Investment{
		UnderscoreId: inv.ID, Reference: reference.For(reference.Investment, inv.ID), Plan: inv.Terms.PlanName, PlanId: inv.Terms.PlanID, PlanVersion: inv.Terms.PlanVersion,
		Amount: inv.Amount.String(), Status: apigen.InvestmentStatus(inv.Status), TermDays: inv.Terms.TermDays,
		TermRate: t.RateText(), Apr: t.APRPercent().StringFixed(plan.APRDecimals), MaturityAmount: ret.String(),
		Payout: inv.Amount.Add(ret).String(), Forfeited: inv.Forfeited.String(),
		Instruction: apigen.MaturityInstruction(inv.Instruction), ClosedEarly: inv.ClosedEarly,
		ProgressPercent: int(inv.Progress(now).Shift(2).IntPart()), AccruedEstimate: inv.AccruedEstimate(now).String(),
		ReinvestedAs: opt(inv.ReinvestedAs), ReinvestedFrom: opt(inv.ReinvestedFrom), StartDate: inv.Start, EndDate: inv.End,
		RequestedAt: inv.RequestedAt, DecidedAt: inv.DecidedAt, ClosedAt: inv.ClosedAt, Reason: opt(inv.Reason),
	}
	if withUser {
		out.User = &apigen.DepositUser{UnderscoreId: inv.UserID, Name: inv.Name, Email: inv.Email}
	}
	return out
}
