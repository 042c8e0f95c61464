package account_test

import (
	"errors"
	"testing"

	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
)

func TestHoldingsListWhatAnAccountStillHolds(t *testing.T) {
	t.Parallel()
	t.Run("a new account holds nothing and may close", func(t *testing.T) {
		t.Parallel()
		a := loaded(t)
		if h := a.Holdings(); !h.Empty() || h.Refusal() != nil {
			t.Fatalf("holdings of a new account: %+v, %v", h, h.Refusal())
		}
	})
	t.Run("balance, requests and investments are each named", func(t *testing.T) {
		t.Parallel()
		a := loaded(t, history(funded(),
			wdRequested("w1", "50", "1.50"),
			invRequested("i1", "200"), invActivated("i1", "200", "2.50"),
			invRequested("i2", "150"), invActivated("i2", "150", "1.88"),
			invRequested("i3", "100"),
		)...)
		err := a.Holdings().Refusal()
		if !errors.Is(err, account.ErrHoldsMoney) {
			t.Fatalf("refusal = %v, want ErrHoldsMoney", err)
		}
		wantMessage(t, err, domainerr.Conflict, "This account still holds money: 1 withdrawal pending ($50.00), "+
			"1 investment pending ($100.00), 2 active investments ($350.00). Pay it out before closing the account.")
	})
	t.Run("only an available balance", func(t *testing.T) {
		t.Parallel()
		a := loaded(t, funded()...)
		wantMessage(t, a.Holdings().Refusal(), domainerr.Conflict,
			"This account still holds money: $500.00 available. Pay it out before closing the account.")
	})
	t.Run("a deposit waiting for staff counts", func(t *testing.T) {
		t.Parallel()
		a := loaded(t, depositRequested())
		wantMessage(t, a.Holdings().Refusal(), domainerr.Conflict,
			"This account still holds money: 1 deposit pending ($500.00). Pay it out before closing the account.")
	})
	t.Run("paid out in full, it may close", func(t *testing.T) {
		t.Parallel()
		a := loaded(t, history(funded(), wdRequested("w1", "500", "6.00"), wdApproved("w1", "500", "6.00"))...)
		if err := a.Holdings().Refusal(); err != nil {
			t.Fatalf("an emptied account: %v", err)
		}
	})
}

// loaded is the account after history, with nothing done to it.
func loaded(t *testing.T, history ...aggregate.Event) *account.Account {
	t.Helper()
	return accounts.Given(history...).When(func(*account.Account) error { return nil }).Then(t)
}
