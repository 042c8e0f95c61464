package main

import (
	"context"
	"fmt"

	"clearvest/app/money"
	"clearvest/domain/identity"
)

// The demo investor starts with a little money history so the dashboard, the history and the
// staff deposit queue show something real on a fresh development installation: a deposit the
// demo admin confirmed, and one waiting for a decision. Both go through the money service like
// any other, and their notes say they are sample data: no real money moved.

const (
	sampleConfirmedDeposit = "1000.00"
	samplePendingDeposit   = "250.00"
	sampleDepositNotes     = "Sample deposit: demo data, no real money moved."
)

// seedDemoMoney records the sample deposits for investorID, the first one confirmed by adminID.
func seedDemoMoney(ctx context.Context, svc *money.Service, investorID, adminID string) error {
	investor := money.Actor{UserID: investorID, Role: identity.RoleSubscriber}
	admin := money.Actor{UserID: adminID, Role: identity.RoleAdmin}
	confirmed, err := svc.CreateDeposit(ctx, investor, money.DepositInput{Amount: sampleConfirmedDeposit, Asset: "USDT", Network: "TRC20"})
	if err != nil {
		return fmt.Errorf("sample deposit: %w", err)
	}
	if _, err := svc.ConfirmDeposit(ctx, admin, money.DecisionInput{
		TransactionID: confirmed.Deposit.TransactionID, Received: sampleConfirmedDeposit, Notes: sampleDepositNotes,
	}); err != nil {
		return fmt.Errorf("confirming the sample deposit: %w", err)
	}
	if _, err := svc.CreateDeposit(ctx, investor, money.DepositInput{Amount: samplePendingDeposit, Asset: "USDT", Network: "TRC20"}); err != nil {
		return fmt.Errorf("sample pending deposit: %w", err)
	}
	return nil
}
