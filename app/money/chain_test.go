package money_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"clearvest/app/accounts/accountstest"
	"clearvest/app/command"
	"clearvest/app/money"
	"clearvest/domain/account"
	dmoney "clearvest/domain/money"
	"clearvest/eventstore"
)

// sighting is a USDT transfer of $100 on Tron to the investor's address, as the chain watcher
// records it.
func sighting(userID, seed, hash string) money.ChainDeposit {
	return money.ChainDeposit{UserID: userID, DepositID: uuid.NewSHA1(uuid.NameSpaceOID, []byte(seed)).String(),
		Amount: dmoney.MustParse("100"), Asset: "USDT", Network: "TRC20", OnChainAmount: "100.000000", USDRate: "1",
		TxHash: hash, Address: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8"}
}

func (d *decisions) account(t *testing.T) *account.Account {
	t.Helper()
	acc, err := command.Load(context.Background(), d.env.Commands, eventstore.StreamID(account.Stream(d.investor)), account.NewFor(d.investor))
	if err != nil {
		t.Fatal(err)
	}
	return acc
}

// TestChainDepositIsOneRoundTrip: a transfer the chain watcher saw is recorded with its
// reference, its claim, the claim's check and its sighting in one round trip, without a
// transaction held open across round trips; before it, the transaction's claim is read once.
func TestChainDepositIsOneRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rt := &accountstest.RoundTrips{}
	d := newDecisions(t, money.Config{}, accountstest.WithQueryTracer(rt))
	// The first sighting warms the runner's cache of the account and the pool's connections.
	if _, err := d.svc.RecordChainDeposit(ctx, sighting(d.investor, "first", strings.Repeat("a", 64))); err != nil {
		t.Fatal(err)
	}
	var err error
	trips := rt.During(func() {
		_, err = d.svc.RecordChainDeposit(accountstest.Marked(ctx), sighting(d.investor, "second", strings.Repeat("b", 64)))
	})
	if err != nil {
		t.Fatal(err)
	}
	w := accountstest.Writes(trips)
	if len(trips) > 2 || len(w) != 1 {
		for i, q := range trips {
			t.Logf("  %d: %.160s", i, strings.Join(strings.Fields(strings.Join(q, " ; ")), " "))
		}
		t.Fatalf("%d round trips, %d writing; want the claim's read and one write", len(trips), len(w))
	}
	for _, part := range []string{"money_deposit_refs", "money_chain_tx_hashes", "money_chain_claim_held", "money_chain_sightings"} {
		if !accountstest.Carries(w[0], part) {
			t.Errorf("the round trip does not carry %s: %q", part, w[0])
		}
	}
	for _, sql := range w[0] {
		if s := strings.ToLower(strings.TrimSpace(sql)); strings.HasPrefix(s, "begin") || strings.HasPrefix(s, "commit") {
			t.Errorf("the sighting held a transaction open: %q", w[0])
		}
	}
}

// TestDeclarationBetweenAClaimsReadAndTheSighting: the investor declares the transaction by hand
// after the chain watcher read its claim (none yet) and before the sighting's round trip. The
// round trip finds the claim is not the one read, the sighting reads it again, and the transfer
// is linked to the declared deposit: one deposit, credited once, never two for one transaction.
func TestDeclarationBetweenAClaimsReadAndTheSighting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := newDecisions(t, money.Config{})
	hash := strings.Repeat("e", 64)
	var declared string
	reads := 0
	d.svc.AfterClaimRead(func() {
		reads++
		if declared == "" {
			declared = d.deposit(t, hash)
		}
	})
	r, err := d.svc.RecordChainDeposit(ctx, sighting(d.investor, "raced", hash))
	if err != nil {
		t.Fatal(err)
	}
	if reads != 2 {
		t.Errorf("the claim was read %d times, want 2: once before the declaration, once after", reads)
	}
	deps := d.account(t).Deposits()
	if len(deps) != 1 || deps[0].TransactionID != declared || deps[0].ID != r.DepositID || deps[0].Source != account.SourceChain {
		t.Fatalf("deposits %+v, answer %+v; want the one declared (%s), linked to the transfer", deps, r, declared)
	}
	var sightings, claims int
	if err := d.env.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM money_chain_sightings WHERE deposit_id = $1),
		(SELECT count(*) FROM money_chain_tx_hashes WHERE ref = $2)`, r.DepositID, declared).Scan(&sightings, &claims); err != nil {
		t.Fatal(err)
	}
	if sightings != 1 || claims != 1 {
		t.Fatalf("%d sightings on the declared deposit, %d claims by it; want 1 and 1", sightings, claims)
	}
}
