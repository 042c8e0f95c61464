package money_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"clearvest/app/command"
	"clearvest/app/money"
	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	dmoney "clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/eventstore/pii"
	"clearvest/eventstore/postgres"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

// BenchmarkColdAccountLoad is what loading a money stream costs a process that has not seen it
// (the first command after a start): a 10,000-event account from its snapshot and the events
// after it, the same account replayed in full, and a new account of 7 events, each with a fresh
// runner per load. The states are sealed and opened with the real cipher, as in serve.
//
//	go test ./app/money -run '^$' -bench ColdAccountLoad -count 6 | benchstat -col /stream -
func BenchmarkColdAccountLoad(b *testing.B) {
	ctx := context.Background()
	pool := pgtest.NewPool(b)
	if err := pgmigrate.Apply(ctx, pool, postgres.Migrations, pii.Migrations); err != nil {
		b.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := postgres.New(pool, postgres.WithLogger(quiet))
	b.Cleanup(store.Close)
	cipher, err := pii.New(pool, []byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		b.Fatal(err)
	}
	codec := eventstore.NewRegistry()
	account.RegisterEvents(codec)
	codec.SetCipher(cipher)

	long, short := "01a22600-0000-7000-8000-000000000001", "01a22600-0000-7000-8000-000000000002"
	for user, n := range map[string]int{long: 10_000, short: 7} {
		stream := eventstore.StreamID(account.Stream(user))
		events := accountHistory(n)
		for at := 0; at < len(events); at += 500 {
			batch := make([]eventstore.NewEvent, 0, 500)
			for _, e := range events[at:min(at+500, len(events))] {
				ne, err := codec.EncodeFor(stream, e, eventstore.Metadata{})
				if err != nil {
					b.Fatal(err)
				}
				batch = append(batch, ne)
			}
			if _, err := store.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: int64(at), Events: batch}); err != nil {
				b.Fatal(err)
			}
		}
	}
	// One command on the long account leaves its snapshot, as its own commands would have.
	longStream := eventstore.StreamID(account.Stream(long))
	if _, err := command.Execute(ctx, command.NewRunner(store, codec, command.WithLogger(quiet), money.Snapshots(money.SnapshotEvery)),
		longStream, account.NewFor(long), eventstore.Metadata{}, func(a *account.Account) error {
			return a.CreditReferralBonus("01a22600-0000-7000-8000-0000000000ff", dmoney.MustParse("1"), time.Now())
		}); err != nil {
		b.Fatal(err)
	}
	var snapshotAt int64
	if err := pool.QueryRow(ctx, `SELECT version FROM snapshots WHERE stream_id = $1`, string(longStream)).Scan(&snapshotAt); err != nil {
		b.Fatalf("no snapshot of the long account: %v", err)
	}

	for _, bc := range []struct {
		name, user string
		opts       []command.Option
	}{
		{"stream=long-snapshot", long, []command.Option{money.Snapshots(money.SnapshotEvery)}},
		{"stream=long-replay", long, nil},
		{"stream=new", short, []command.Option{money.Snapshots(money.SnapshotEvery)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var version int64
			for b.Loop() {
				r := command.NewRunner(store, codec, append([]command.Option{command.WithLogger(quiet)}, bc.opts...)...)
				acc, err := command.Load(ctx, r, eventstore.StreamID(account.Stream(bc.user)), account.NewFor(bc.user))
				if err != nil {
					b.Fatal(err)
				}
				version = acc.Version()
			}
			if version < 7 {
				b.Fatalf("loaded version %d", version)
			}
		})
	}
}

// accountHistory is about n events of one investor: deposits confirmed, investments activated
// and matured, withdrawals approved, in turn.
func accountHistory(n int) []aggregate.Event {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	usd := dmoney.MustParse
	terms := account.Terms{PlanID: "p1", PlanVersion: 1, PlanName: "Starter", TermDays: 30, TermRate: "0.015", Min: usd("10"), Max: usd("5000")}
	var events []aggregate.Event
	for i := 0; len(events) < n; i++ {
		d, inv, w := fmt.Sprintf("d-%06d", i), fmt.Sprintf("i-%06d", i), fmt.Sprintf("w-%06d", i)
		events = append(events,
			account.DepositRequested{DepositID: d, TransactionID: "T" + d, Amount: usd("100"), Asset: "USDT", Network: "TRC20", OnChainAmount: "100", USDRate: "1", Address: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8", At: at},
			account.DepositConfirmed{DepositID: d, Received: usd("100"), StaffID: "s1", At: at},
			account.InvestmentRequested{InvestmentID: inv, Terms: terms, Amount: usd("50"), At: at},
			account.InvestmentActivated{InvestmentID: inv, Amount: usd("50"), Return: usd("0.75"), Start: at, End: at.AddDate(0, 0, 30), StaffID: "s1"},
			account.InvestmentMatured{InvestmentID: inv, Principal: usd("50"), Return: usd("0.75"), At: at},
			account.WithdrawalRequested{WithdrawalID: w, Amount: usd("20"), Fee: usd("1"), Address: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", Network: "TRC20", Asset: "USDT", At: at},
			account.WithdrawalApproved{WithdrawalID: w, Amount: usd("20"), Fee: usd("1"), TxHash: "0x99", StaffID: "s1", At: at},
		)
	}
	return events[:n]
}
