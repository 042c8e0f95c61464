package money_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"clearvest/app/accounts"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/approvals"
	"clearvest/app/command"
	"clearvest/app/money"
	"clearvest/domain/asset"
	"clearvest/domain/identity"
	dmoney "clearvest/domain/money"
	"clearvest/domain/payout"
	"clearvest/domain/proposal"
	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
	"clearvest/platform/config"
	"clearvest/projections"
)

// decisions is a money service with an investor, staff and their deposits.
type decisions struct {
	env      *accountstest.Env
	svc      *money.Service
	investor string
	user     func(email string, role identity.Role) string
}

func newDecisions(t *testing.T, cfg money.Config, opts ...accountstest.Option) *decisions {
	t.Helper()
	ctx := context.Background()
	// Snapshots rarely: a snapshot's save follows a command's commit and is no part of it.
	env := accountstest.New(t, append(opts, accountstest.WithSnapshotEvery(1000),
		accountstest.WithReadModels(func(*eventstore.Registry) []projections.Projection { return nil }, money.Migrations, approvals.Migrations))...)
	fee, err := config.ParseWithdrawalFee(config.DefaultWithdrawalFee)
	if err != nil {
		t.Fatal(err)
	}
	cfg.PublicURL, cfg.WithdrawalFee = accountstest.PublicURL, fee
	cfg.Addresses = []money.Address{{Asset: asset.USDT, Network: payout.Tron, Address: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8"}}
	svc, err := money.New(cfg, money.Deps{Pool: env.Pool, Commands: env.Commands, Sender: env.Sender, Clock: env.Clock})
	if err != nil {
		t.Fatal(err)
	}
	d := &decisions{env: env, svc: svc}
	d.user = func(email string, role identity.Role) string {
		t.Helper()
		u, err := env.Accounts.CreateUser(ctx, accounts.CreateUserInput{Name: "Test " + email, Email: email,
			Password: "correct horse battery staple 42", Role: string(role), Verified: true})
		if err != nil {
			t.Fatal(err)
		}
		return u.ID
	}
	d.investor = d.user("ivy@example.com", identity.RoleSubscriber)
	return d
}

// deposit requests a USDT deposit of $100 as the investor, for the transaction hash (or none).
func (d *decisions) deposit(t *testing.T, hash string) string {
	t.Helper()
	c, err := d.svc.CreateDeposit(context.Background(), money.Actor{UserID: d.investor, Role: identity.RoleSubscriber},
		money.DepositInput{Amount: "100", Asset: "USDT", Network: "TRC20", TxHash: hash})
	if err != nil {
		t.Fatal(err)
	}
	return c.Deposit.TransactionID
}

// TestStaffDecisionIsOneRoundTrip: a staff decision on a deposit sends its events, the
// investor's e-mail and its checks in one round trip to PostgreSQL, without a transaction held
// open across round trips (no BEGIN, no COMMIT of its own); before it, each thing the decision
// rests on is read once. A request's Idempotency-Key claim (command.WithClaim) rides in that
// round trip too, and a repeat of the request writes nothing.
func TestStaffDecisionIsOneRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rt := &accountstest.RoundTrips{}
	d := newDecisions(t, money.Config{}, accountstest.WithQueryTracer(rt))
	svc := d.svc
	staff := money.Actor{UserID: d.user("sam@example.com", identity.RoleAuthor), Role: identity.RoleAuthor}
	deposit := func(hash string) string { return d.deposit(t, hash) }
	first, second := deposit(strings.Repeat("a", 64)), deposit(strings.Repeat("b", 64))
	third, fourth := deposit(""), deposit("")
	const claimSQL = "SELECT 'the request''s claim'"
	claimed := func(ctx context.Context) context.Context {
		return command.WithClaim(ctx, &command.Claim{Statement: postgres.Statement{SQL: claimSQL}, Key: "key-1", Hash: "hash-1"})
	}

	// The first decision warms what a running server has warm: the runner's cache of the
	// account and of the users, and the pool's connections.
	if _, err := svc.RejectDeposit(ctx, staff, money.DecisionInput{TransactionID: first, Notes: "not received"}); err != nil {
		t.Fatal(err)
	}
	var keyed money.Decision
	for _, c := range []struct {
		name   string
		trips  int // the ref, the account, the hash's sightings, the investor, the staff member, the command
		writes int
		decide func(ctx context.Context) error
	}{
		{"confirm", 6, 1, func(ctx context.Context) error {
			_, err := svc.ConfirmDeposit(ctx, staff, money.DecisionInput{TransactionID: second, Received: "100"})
			return err
		}},
		{"reject", 4, 1, func(ctx context.Context) error {
			_, err := svc.RejectDeposit(ctx, staff, money.DecisionInput{TransactionID: third, Notes: "not received"})
			return err
		}},
		{"confirm with a key", 5, 1, func(ctx context.Context) (err error) {
			keyed, err = svc.ConfirmDeposit(claimed(ctx), staff, money.DecisionInput{TransactionID: fourth, Received: "100"})
			return err
		}},
		// The ref and the account refuse it as decided; the account's tail and the request's
		// events answer it.
		{"its repeat", 4, 0, func(ctx context.Context) error {
			again, err := svc.ConfirmDeposit(claimed(ctx), staff, money.DecisionInput{TransactionID: fourth, Received: "100"})
			if err == nil && again != keyed {
				t.Errorf("repeat answered %+v, want the first answer %+v", again, keyed)
			}
			return err
		}},
	} {
		var err error
		trips := rt.During(func() { err = c.decide(accountstest.Marked(ctx)) })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		w := accountstest.Writes(trips)
		t.Logf("%s: %d round trips, %d of them writing", c.name, len(trips), len(w))
		if len(trips) > c.trips {
			for i, q := range trips {
				t.Logf("  %d: %.160s", i, strings.Join(strings.Fields(strings.Join(q, " ; ")), " "))
			}
			t.Errorf("%s took %d round trips, want at most %d: each stream it rests on read once", c.name, len(trips), c.trips)
		}
		if len(w) != c.writes {
			t.Fatalf("%s wrote in %d round trips, want %d: %q", c.name, len(w), c.writes, w)
		}
		if c.writes == 1 && !accountstest.Carries(w[0], "mail_outbox") {
			t.Fatalf("%s: the e-mail did not go with the events: %q", c.name, w[0])
		}
		if c.name == "confirm with a key" && !accountstest.Carries(w[0], claimSQL) {
			t.Fatalf("%s: the claim did not go with the events: %q", c.name, w[0])
		}
	}
}

// TestApprovedConfirmationChecksTheTransactionInItsRoundTrip: an approved confirmation is not
// checked before its command (the proposal was), so a transfer the chain watcher saw pay another
// investor in between is caught by the check sent with the confirmation itself
// (money_not_paid_to_another), and nothing of the approval or the decision is stored.
func TestApprovedConfirmationChecksTheTransactionInItsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := newDecisions(t, money.Config{Thresholds: money.Thresholds{DepositThreshold: dmoney.MustParse("50")}})
	ap, err := approvals.New(approvals.Deps{Pool: d.env.Pool, Commands: d.env.Commands, Clock: d.env.Clock})
	if err != nil {
		t.Fatal(err)
	}
	d.svc.RegisterExecutors(ap)
	proposer := money.Actor{UserID: d.user("sam@example.com", identity.RoleAuthor), Role: identity.RoleAuthor}
	approver := approvals.Actor{UserID: d.user("ada@example.com", identity.RoleAdmin), Role: identity.RoleAdmin}
	hash := strings.Repeat("c", 64)
	tx := d.deposit(t, hash)
	dec, err := d.svc.ConfirmDeposit(ctx, proposer, money.DecisionInput{TransactionID: tx, Received: "100", Notes: "above the threshold"})
	if err != nil || dec.ProposalID == "" {
		t.Fatalf("confirmation above the threshold: %+v, %v; want a proposal", dec, err)
	}
	if _, err := d.env.Pool.Exec(ctx, `INSERT INTO money_chain_sightings (network, tx_hash, user_id, deposit_id, created_at)
		VALUES ('TRC20', $1, 'another-investor', 'their-deposit', now())`, hash); err != nil {
		t.Fatal(err)
	}
	if _, err := ap.Approve(ctx, approver, dec.ProposalID, "checked", nil); !errors.Is(err, money.ErrPaidAnotherInvestor) {
		t.Fatalf("approval: %v, want ErrPaidAnotherInvestor", err)
	}
	p, err := ap.Get(ctx, dec.ProposalID)
	if err != nil || p.Status != proposal.StatusPending {
		t.Fatalf("proposal %+v, %v: want it still pending", p, err)
	}
	// Without the sighting the same approval goes through, with the approval recorded.
	if _, err := d.env.Pool.Exec(ctx, `DELETE FROM money_chain_sightings`); err != nil {
		t.Fatal(err)
	}
	if _, err := ap.Approve(ctx, approver, dec.ProposalID, "checked", nil); err != nil {
		t.Fatal(err)
	}
	if p, err := ap.Get(ctx, dec.ProposalID); err != nil || p.Status == proposal.StatusPending {
		t.Fatalf("proposal %+v, %v: want it decided", p, err)
	}
}
