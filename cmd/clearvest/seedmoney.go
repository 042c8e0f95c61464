package main

import (
	"context"
	"fmt"

	appkyc "clearvest/app/kyc"
	"clearvest/app/money"
	"clearvest/domain/identity"
)

// The demo investor starts with a little money history so every signed-in screen and every staff
// queue shows something real on a fresh development installation: a deposit the demo admin
// confirmed and one waiting for a decision, an identity check the admin approved (sample
// documents, marked SAMPLE on their face), a running investment in a demo plan, and a withdrawal
// waiting for staff. Everything goes through the services like any other request, and the
// deposit notes say they are sample data: no real money moved.

const (
	sampleConfirmedDeposit = "1000.00"
	samplePendingDeposit   = "250.00"
	sampleDepositNotes     = "Sample deposit: demo data, no real money moved."
	sampleInvestment       = "300.00"
	sampleInvestmentPlan   = "Standard"
	sampleWithdrawal       = "50.00"
	// sampleWithdrawalAddress is TRON's well-known burn address: valid, and no one's wallet, so
	// the sample withdrawal names nobody real even if someone approved it by mistake.
	sampleWithdrawalAddress = "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb"
)

// seedDemoMoney records the sample deposits for investorID, the first one confirmed by adminID,
// and, when kycSvc is given, the identity check, investment and withdrawal that follow. The demo
// plans must exist (seedDemoPlans).
func seedDemoMoney(ctx context.Context, svc *money.Service, kycSvc *appkyc.Service, investorID, adminID, name string) error {
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
	if kycSvc == nil {
		return nil
	}
	if err := submitSampleKYC(ctx, kycSvc, investorID, name); err != nil {
		return err
	}
	if _, err := kycSvc.Approve(ctx, appkyc.Actor{UserID: adminID, Role: identity.RoleAdmin}, investorID, 0); err != nil {
		return fmt.Errorf("approving the sample identity check: %w", err)
	}
	in := money.InvestInput{Amount: sampleInvestment, PlanName: sampleInvestmentPlan}
	q, err := svc.QuoteInvestment(ctx, investor, in)
	if err != nil {
		return fmt.Errorf("quoting the sample investment: %w", err)
	}
	in.PlanVersion = q.PlanVersion
	inv, err := svc.StartInvestment(ctx, investor, in)
	if err != nil {
		return fmt.Errorf("sample investment: %w", err)
	}
	if _, err := svc.ApproveInvestment(ctx, admin, inv.Investment.ID); err != nil {
		return fmt.Errorf("approving the sample investment: %w", err)
	}
	wq, err := svc.QuoteWithdrawal(ctx, investor, money.QuoteInput{Amount: sampleWithdrawal, Network: "TRC20", WalletAddress: sampleWithdrawalAddress})
	if err != nil {
		return fmt.Errorf("quoting the sample withdrawal: %w", err)
	}
	if _, err := svc.CreateWithdrawal(ctx, investor, money.WithdrawalInput{Amount: sampleWithdrawal, Network: "TRC20",
		WalletAddress: sampleWithdrawalAddress, Fee: wq.Fee.String()}); err != nil {
		return fmt.Errorf("sample withdrawal: %w", err)
	}
	return nil
}
