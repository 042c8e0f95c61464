package api_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"clearvest/api"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/approvals"
	"clearvest/app/kyc/kyctest"
	"clearvest/app/money"
	dm "clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/history"
	"clearvest/projections/ledger"
	"clearvest/projections/proposals"
	"clearvest/projections/wallets"
	"clearvest/projections/withdrawals"
)

// newChainApp is newFourEyesApp that also hands back its money service, through which a test
// records what the chain watcher would.
func newChainApp(t *testing.T) (*app, *money.Service) {
	t.Helper()
	env := kyctest.New(t, accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		return []projections.Projection{ledger.New(codec), wallets.New(codec), withdrawals.New(codec), history.New(codec), proposals.New(codec)}
	}, money.Migrations, approvals.Migrations))
	svc := newMoneyService(t, env.Env, env.Commands, nil, env.Clock, func(c *money.Config) {
		c.Thresholds = money.Thresholds{DepositTolerance: decimal.RequireFromString("0.01"), DepositThreshold: dm.MustParse("10000"),
			WithdrawalThreshold: dm.MustParse("10000"), MaxAmount: dm.MustParse("10000000")}
	})
	ap, err := approvals.New(approvals.Deps{Pool: env.Pool, Commands: env.Commands, Clock: env.Clock})
	if err != nil {
		t.Fatal(err)
	}
	svc.RegisterExecutors(ap)
	env.Accounts.RegisterExecutors(ap)
	return serve(t, env.Env, func(d *api.Deps) { d.Money, d.Approvals, d.KYC = svc, ap, env.KYC }), svc
}

// seenOnChain records a pending deposit of amount USD as the chain watcher does for a BTC
// transfer to the investor's address, and returns its transaction id and event position.
func seenOnChain(t *testing.T, svc *money.Service, userID, amount, seed string) (string, int64) {
	t.Helper()
	id := uuid.NewSHA1(uuid.NameSpaceOID, []byte(seed)).String()
	r, err := svc.RecordChainDeposit(context.Background(), money.ChainDeposit{UserID: userID, DepositID: id, Amount: dm.MustParse(amount),
		Asset: "BTC", Network: "BTC", OnChainAmount: "0.01", USDRate: "100000", TxHash: testHash(seed), Address: testBTCAddress})
	if err != nil {
		t.Fatal(err)
	}
	return money.ChainTransactionID(id), r.Position
}

const msgChainDeposit = "This deposit is credited by the network once it has its confirmations; it cannot be confirmed or rejected by hand."

func TestStaffCannotDecideAChainDeposit(t *testing.T) {
	t.Parallel()
	a, svc := newChainApp(t)
	_, investor := a.member(t, "ivy@example.com", "subscriber")
	admin, _ := a.member(t, "ada@example.com", "admin")
	small, _ := seenOnChain(t, svc, investor.ID, "1000", "small")
	large, pos := seenOnChain(t, svc, investor.ID, "20000", "large")
	admin.position = max(admin.position, pos)

	for _, res := range []response{
		confirm(admin, small, "1000", ""),
		admin.do(http.MethodPatch, "/api/payments/rejectPayment", map[string]string{"transactionId": small, "notes": "Nothing arrived"}),
		// Above the threshold a confirmation would be a proposal: none is made.
		confirm(admin, large, "20000", "Matches the chain"),
		// What differs from the estimate would be a proposal too.
		confirm(admin, small, "900", "Less arrived"),
	} {
		expect(t, res, http.StatusConflict)
		if m := decodeJSON[struct{ Message string }](t, res).Message; m != msgChainDeposit {
			t.Errorf("message %q", m)
		}
	}
	res := admin.do(http.MethodGet, "/api/proposals", nil)
	expect(t, res, http.StatusOK)
	if l := decodeJSON[proposalListJSON](t, res); len(l.Pending) != 0 {
		t.Fatalf("proposals for a chain deposit: %+v", l.Pending)
	}
	res = admin.do(http.MethodGet, "/api/payments/viewPaymentStatus/"+small, nil)
	expect(t, res, http.StatusOK)
	if d := decodeJSON[depositJSON](t, res); d.Status != "Pending" {
		t.Fatalf("chain deposit after refused decisions: %+v", d)
	}
}
