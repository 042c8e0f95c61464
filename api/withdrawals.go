package api

import (
	"context"
	"errors"
	"time"

	"clearvest/api/apigen"
	appmoney "clearvest/app/money"
	"clearvest/domain/chain"
	"clearvest/domain/reference"
)

const (
	msgWithdrawalApproved = "Withdrawal approved!"
	msgWithdrawalRejected = "Withdrawal rejected!"
)

func (s *server) CreateWithdrawal(ctx context.Context, req apigen.CreateWithdrawalRequestObject) (apigen.CreateWithdrawalResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	in := appmoney.WithdrawalInput{Amount: req.Body.Amount, WalletAddress: req.Body.WalletAddress, Network: req.Body.Network,
		Fee: req.Body.Fee}
	if req.Body.Asset != nil {
		in.Asset = *req.Body.Asset
	}
	created, err := s.money.CreateWithdrawal(ctx, a, in)
	if changed, ok := errors.AsType[*appmoney.FeeChangedError](err); ok {
		q := withdrawalQuoteJSON(changed.Quote)
		return nil, detailed(err, func(b *apigen.Error) { b.WithdrawalQuote = &q })
	}
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, created.Position)
	return apigen.CreateWithdrawal200JSONResponse(withdrawalJSON(created.Withdrawal, false)), nil
}

func (s *server) QuoteWithdrawal(ctx context.Context, req apigen.QuoteWithdrawalRequestObject) (apigen.QuoteWithdrawalResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	in := appmoney.QuoteInput{Network: req.Body.Network, Amount: str(req.Body.Amount), WalletAddress: str(req.Body.WalletAddress)}
	q, err := s.money.QuoteWithdrawal(ctx, a, in)
	if err != nil {
		return nil, err
	}
	return apigen.QuoteWithdrawal200JSONResponse(withdrawalQuoteJSON(q)), nil
}

func withdrawalQuoteJSON(q appmoney.WithdrawalQuote) apigen.WithdrawalQuote {
	out := apigen.WithdrawalQuote{Minimum: q.Minimum.String(), Schedule: q.Schedule}
	if q.Amount != nil {
		amount, fee, receives := q.Amount.String(), q.Fee.String(), q.Receives.String()
		out.Amount, out.Fee, out.Receives = &amount, &fee, &receives
	}
	if q.Address != "" {
		out.WalletAddress = &q.Address
	}
	if q.FeeExempt {
		out.FeeExempt = &q.FeeExempt
	}
	return out
}

func (s *server) GetPendingWithdrawals(ctx context.Context, req apigen.GetPendingWithdrawalsRequestObject) (apigen.GetPendingWithdrawalsResponseObject, error) {
	if _, err := s.moneyCaller(ctx); err != nil {
		return nil, err
	}
	page, err := s.money.PendingWithdrawalPage(ctx, str(req.Params.Cursor), req.Params.Limit)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	out := apigen.GetPendingWithdrawals200JSONResponse{AsOf: now, Total: page.Total, NextCursor: nextCursor(page.NextCursor),
		Withdrawals: make([]apigen.WithdrawalQueueItem, 0, len(page.Items))}
	for _, w := range page.Items {
		out.Withdrawals = append(out.Withdrawals, apigen.WithdrawalQueueItem{Withdrawal: withdrawalJSON(w, true),
			AgeSeconds: max(0, int64(now.Sub(w.RequestedAt)/time.Second))})
	}
	return out, nil
}

func (s *server) GetWithdrawal(ctx context.Context, req apigen.GetWithdrawalRequestObject) (apigen.GetWithdrawalResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	w, err := s.money.Withdrawal(ctx, a, req.Id)
	if err != nil {
		return nil, err
	}
	staff := a.Role.IsStaff()
	out := withdrawalJSON(w, staff)
	if staff {
		b, err := s.money.Balances(ctx, w.UserID)
		if err != nil {
			return nil, err
		}
		available := b.Available.String()
		out.AvailableBalance = &available
	}
	return apigen.GetWithdrawal200JSONResponse(out), nil
}

func (s *server) GetWithdrawalHistory(ctx context.Context, _ apigen.GetWithdrawalHistoryRequestObject) (apigen.GetWithdrawalHistoryResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.money.WithdrawalHistory(ctx, a)
	if err != nil {
		return nil, err
	}
	out := apigen.GetWithdrawalHistory200JSONResponse{Withdrawals: make([]apigen.Withdrawal, 0, len(list))}
	for _, w := range list {
		out.Withdrawals = append(out.Withdrawals, withdrawalJSON(w, false))
	}
	return out, nil
}

func (s *server) ApproveWithdrawal(ctx context.Context, req apigen.ApproveWithdrawalRequestObject) (apigen.ApproveWithdrawalResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	in := appmoney.PayoutInput{WithdrawalID: req.Id}
	if req.Body.TxHash != nil {
		in.TxHash = *req.Body.TxHash
	}
	if req.Body.Reason != nil {
		in.Reason = *req.Body.Reason
	}
	if req.Body.OnChainAmount != nil {
		in.OnChainAmount = *req.Body.OnChainAmount
	}
	if req.Body.UsdRate != nil {
		in.USDRate = *req.Body.UsdRate
	}
	d, err := s.money.ApproveWithdrawal(ctx, a, in)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, d.Position)
	if d.ProposalID != "" {
		return apigen.ApproveWithdrawal202JSONResponse{Message: msgSentForApproval, ProposalId: d.ProposalID}, nil
	}
	return apigen.ApproveWithdrawal200JSONResponse{Message: msgWithdrawalApproved}, nil
}

func (s *server) RejectWithdrawal(ctx context.Context, req apigen.RejectWithdrawalRequestObject) (apigen.RejectWithdrawalResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	pos, err := s.money.RejectWithdrawal(ctx, a, req.Id, req.Body.Reason)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.RejectWithdrawal200JSONResponse{Message: msgWithdrawalRejected}, nil
}

// withdrawalJSON maps a withdrawal onto the specification; withUser adds the investor (staff
// views).
func withdrawalJSON(w appmoney.Withdrawal, withUser bool) apigen.Withdrawal {
	out := apigen.Withdrawal{
		UnderscoreId: w.ID, Reference: reference.For(reference.Withdrawal, w.ID), Amount: w.Amount.String(), Fee: w.Fee.String(), Receives: w.Receives.String(),
		FeeWaived: w.FeeWaived.String(), WalletAddress: w.Address, Network: w.Network, Asset: w.Asset,
		Status: apigen.WithdrawalStatus(w.Status), RequestDate: w.RequestedAt, DecidedAt: w.DecidedAt, TxHash: w.TxHash,
		OnChainAmount: w.OnChainAmount, UsdRate: w.USDRate, Reason: w.Reason,
	}
	if withUser {
		out.User = &apigen.DepositUser{UnderscoreId: w.UserID, Name: w.Name, Email: w.Email}
	}
	if c := w.OnChain; c.Status != chain.PayoutNotSeen && c.SeenAt != nil {
		out.PayoutOnChain = &apigen.PayoutOnChain{Status: apigen.PayoutOnChainStatus(c.Status), Height: int64(c.Height),
			Confirmations: int64(c.Confirmations), SeenAt: *c.SeenAt}
	}
	return out
}
