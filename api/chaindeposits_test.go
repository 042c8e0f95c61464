package api_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"clearvest/api"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/approvals"
	"clearvest/app/chainwatch"
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
	}, money.Migrations, approvals.Migrations, chainwatch.Migrations))
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
	return serve(t, env.Env, func(d *api.Deps) {
		d.Money, d.Approvals, d.KYC, d.ChainProgress = svc, ap, env.KYC, chainwatch.NewProgressReader(env.Pool)
	}), svc
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

// progressJSON is what the deposit pages read of a chain deposit.
type progressJSON struct {
	TransactionID       string `json:"transactionId"`
	Reference           string `json:"reference"`
	Source              string `json:"source"`
	Confirmations       *int   `json:"confirmations"`
	ConfirmationsNeeded *int   `json:"confirmationsNeeded"`
}

func (p progressJSON) reads() string {
	if p.Confirmations == nil || p.ConfirmationsNeeded == nil {
		return p.Source
	}
	return fmt.Sprintf("%s %d of %d", p.Source, *p.Confirmations, *p.ConfirmationsNeeded)
}

// TestChainDepositsShowTheirConfirmations: the investor's deposit, their dashboard and the
// staff queue say how many confirmations a pending chain deposit has of how many; a declared
// deposit says it is declared and nothing more.
func TestChainDepositsShowTheirConfirmations(t *testing.T) {
	t.Parallel()
	a, svc := newChainApp(t)
	investor, investorUser := a.member(t, "ivy@example.com", "subscriber")
	admin, _ := a.member(t, "ada@example.com", "admin")
	declared := createUSDT(t, investor, "50", "")
	seen, pos := seenOnChain(t, svc, investorUser.ID, "1000", "seen")
	waiting, pos2 := seenOnChain(t, svc, investorUser.ID, "10", "waiting")
	investor.position = max(investor.position, pos, pos2)
	admin.position = investor.position
	// The watcher's index: "seen" is in block 100 of BTC, whose tip is 101 and which credits at 3;
	// "waiting" has no row yet.
	ctx := context.Background()
	if _, err := a.Pool.Exec(ctx, `INSERT INTO chain_cursors (network, height, hash, tip, confirmations, updated_at) VALUES ('BTC', 101, 'h101', 101, 3, now())`); err != nil {
		t.Fatal(err)
	}
	seenID := uuid.NewSHA1(uuid.NameSpaceOID, []byte("seen")).String()
	if _, err := a.Pool.Exec(ctx, `INSERT INTO chain_transfers (network, key, user_id, deposit_id, asset, amount, tx_hash, address, block_hash, height, status, deposit_recorded, updated_at)
		VALUES ('BTC', 'k1', $1, $2, 'BTC', '0.01', $3, $4, 'h100', 100, 'detected', true, now())`, investorUser.ID, seenID, testHash("seen"), testBTCAddress); err != nil {
		t.Fatal(err)
	}

	want := map[string]string{seen: "chain 2 of 3", waiting: "chain 0 of 2", declared.TransactionID: "declared"}
	for txID, w := range want {
		res := investor.do(http.MethodGet, "/api/payments/viewPaymentStatus/"+txID, nil)
		expect(t, res, http.StatusOK)
		if got := decodeJSON[progressJSON](t, res).reads(); got != w {
			t.Errorf("investor's %s reads %q, want %q", txID, got, w)
		}
	}
	res := admin.do(http.MethodGet, "/api/payments/pending-deposit", nil)
	expect(t, res, http.StatusOK)
	queue := decodeJSON[struct {
		Deposits []struct {
			Deposit progressJSON `json:"deposit"`
		} `json:"deposits"`
	}](t, res)
	if len(queue.Deposits) != 3 {
		t.Fatalf("staff queue has %d deposits, want the declared one and both chain deposits", len(queue.Deposits))
	}
	for _, d := range queue.Deposits {
		if got := d.Deposit.reads(); got != want[d.Deposit.TransactionID] {
			t.Errorf("queue's %s reads %q, want %q", d.Deposit.TransactionID, got, want[d.Deposit.TransactionID])
		}
	}
	// The navigation's count (GET /staff/queue-counts reads it) is what waits for a staff
	// decision: the declared deposit alone.
	if n, err := svc.DepositsForStaff(ctx); err != nil || n != 1 {
		t.Errorf("deposits waiting for staff: %d (%v), want 1: the chain deposits are the watcher's to decide", n, err)
	}
	res = investor.do(http.MethodGet, "/api/invest/dashboard", nil)
	expect(t, res, http.StatusOK)
	dash := decodeJSON[struct {
		Pending []progressJSON `json:"pending"`
	}](t, res)
	got := map[string]string{}
	for _, p := range dash.Pending {
		got[p.Reference] = p.reads()
	}
	for txID, w := range map[string]string{seen: " 2 of 3", waiting: " 0 of 2", declared.TransactionID: ""} {
		if got[txID] != w {
			t.Errorf("dashboard's %s reads %q, want %q (all: %v)", txID, got[txID], w, got)
		}
	}
}
