package account_test

import (
	"testing"

	"clearvest/domain/account"
)

const approverID = "0191f3c2-7a4e-7b1c-9e2d-000000000003"

func TestCountersignedDecisionsNameTwoDifferentStaffMembers(t *testing.T) {
	t.Parallel()
	second := account.Countersign{ProposalID: "p1", ApproverID: approverID}
	t.Run("a confirmation records the proposer and the approver", func(t *testing.T) {
		t.Parallel()
		want := confirmed("20000")
		want.ProposalID, want.ApprovedBy = "p1", approverID
		accounts.Given(depositRequested()).
			When(func(a *account.Account) error {
				return a.ConfirmDepositCountersigned("d1", m("20000"), "", staffID, second, t0)
			}).
			Then(t, want)
	})
	cases := []struct {
		name string
		c    account.Countersign
		want error
	}{
		{"the proposer approves their own proposal", account.Countersign{ProposalID: "p1", ApproverID: staffID}, account.ErrSamePerson},
		{"the owner approves a decision on their own money", account.Countersign{ProposalID: "p1", ApproverID: userID}, account.ErrOwnAccount},
		{"no proposal", account.Countersign{ApproverID: approverID}, account.ErrInvalidID},
	}
	for _, c := range cases {
		t.Run("deposit: "+c.name, func(t *testing.T) {
			t.Parallel()
			accounts.Given(depositRequested()).
				When(func(a *account.Account) error {
					return a.ConfirmDepositCountersigned("d1", m("20000"), "", staffID, c.c, t0)
				}).
				ThenError(t, c.want)
		})
		t.Run("withdrawal: "+c.name, func(t *testing.T) {
			t.Parallel()
			accounts.Given(append(funded(), wdRequested("w1", "100", "2"))...).
				When(func(a *account.Account) error {
					return a.ApproveWithdrawalCountersigned("w1", account.Payout{TxHash: "0xfeed"}, staffID, c.c, t1)
				}).
				ThenError(t, c.want)
		})
	}
}
