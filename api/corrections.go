package api

import (
	"context"

	"clearvest/api/apigen"
	appmoney "clearvest/app/money"
)

// Staff corrections, returns and fees of one user (docs/staff.md, "Corrections" and "Fees").

const (
	msgCorrectionPosted  = "Correction posted"
	msgFeeWaived         = "Fee waived: refunded to the investor's available balance"
	msgExemptionSet      = "Fee exemption turned on"
	msgExemptionLifted   = "Fee exemption turned off"
	maxListedUserFigures = 500
)

func (s *server) GetUserMoney(ctx context.Context, req apigen.GetUserMoneyRequestObject) (apigen.GetUserMoneyResponseObject, error) {
	if _, err := s.moneyCaller(ctx); err != nil {
		return nil, err
	}
	m, err := s.money.UserMoney(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	out := apigen.UserMoney{User: apigen.StaffPerson{UnderscoreId: m.UserID, Name: m.Name}, FeeExempt: m.Exemption.Exempt,
		CorrectionThreshold: m.CorrectionThreshold.String(), Investments: []apigen.StaffInvestment{}, Fees: []apigen.StaffFee{}}
	b := m.Balances
	out.Balances.Available, out.Balances.Held, out.Balances.Invested = b.Available.String(), b.Held.String(), b.Invested.String()
	out.Balances.Returns, out.Balances.Fees, out.Balances.Adjustments = b.Returns.String(), b.Fees.String(), b.Adjustments.String()
	if m.ExemptionSet {
		reason, at := m.Exemption.Reason, m.Exemption.At
		out.ExemptionReason, out.ExemptionAt = &reason, &at
	}
	for i, inv := range m.Investments {
		if i == maxListedUserFigures {
			break
		}
		row := apigen.StaffInvestment{Id: inv.ID, Plan: inv.Terms.PlanName, TermDays: inv.Terms.TermDays, TermRate: inv.Terms.TermRate,
			Amount: inv.Amount.String(), Return: inv.Return.String(), Status: string(inv.Status), RequestedAt: inv.RequestedAt}
		if !inv.Start.IsZero() {
			start, end := inv.Start, inv.End
			row.Start, row.End = &start, &end
		}
		out.Investments = append(out.Investments, row)
	}
	for _, w := range m.Withdrawals {
		if !w.Fee.IsPositive() && !w.FeeWaived.IsPositive() {
			continue
		}
		if len(out.Fees) == maxListedUserFigures {
			break
		}
		row := apigen.StaffFee{WithdrawalId: w.ID, Amount: w.Amount.String(), Fee: w.Fee.String(), FeeWaived: w.FeeWaived.String(),
			Status: string(w.Status), RequestedAt: w.RequestedAt}
		if !w.DecidedAt.IsZero() {
			at := w.DecidedAt
			row.DecidedAt = &at
		}
		out.Fees = append(out.Fees, row)
	}
	return apigen.GetUserMoney200JSONResponse(out), nil
}

func (s *server) PostCorrection(ctx context.Context, req apigen.PostCorrectionRequestObject) (apigen.PostCorrectionResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	b := req.Body
	d, err := s.money.PostCorrection(ctx, a, appmoney.CorrectionInput{UserID: req.Id, Direction: string(b.Direction), Amount: b.Amount,
		Category: string(b.Category), Reason: b.Reason})
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, d.Position)
	if d.ProposalID != "" {
		return apigen.PostCorrection202JSONResponse{Message: msgSentForApproval, ProposalId: d.ProposalID}, nil
	}
	return apigen.PostCorrection200JSONResponse{Message: msgCorrectionPosted}, nil
}

func (s *server) EditReturns(ctx context.Context, req apigen.EditReturnsRequestObject) (apigen.EditReturnsResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	return nil, s.money.EditReturns(ctx, a, req.Id)
}

func (s *server) WaiveFee(ctx context.Context, req apigen.WaiveFeeRequestObject) (apigen.WaiveFeeResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	pos, err := s.money.ChangeFee(ctx, a, appmoney.FeeChange{UserID: req.Id, WithdrawalID: req.Body.WithdrawalId,
		Direction: appmoney.DirectionDeduct, Amount: req.Body.Amount, Reason: req.Body.Reason})
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.WaiveFee200JSONResponse{Message: msgFeeWaived}, nil
}

func (s *server) UpdateFees(ctx context.Context, req apigen.UpdateFeesRequestObject) (apigen.UpdateFeesResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	pos, err := s.money.ChangeFee(ctx, a, appmoney.FeeChange{UserID: req.Id, WithdrawalID: str(req.Body.WithdrawalId),
		Direction: string(req.Body.Direction), Amount: req.Body.Amount, Reason: req.Body.Reason})
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.UpdateFees200JSONResponse{Message: msgFeeWaived}, nil
}

func (s *server) SetFeeExemption(ctx context.Context, req apigen.SetFeeExemptionRequestObject) (apigen.SetFeeExemptionResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	pos, err := s.money.SetFeeExemption(ctx, a, req.Id, req.Body.Exempt, req.Body.Reason)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	msg := msgExemptionLifted
	if req.Body.Exempt {
		msg = msgExemptionSet
	}
	return apigen.SetFeeExemption200JSONResponse{Message: msg}, nil
}
