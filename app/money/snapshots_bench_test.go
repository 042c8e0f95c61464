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
	f := newLongAccount(b)
	for _, bc := range []struct {
		name, user string
		opts       []command.Option
	}{
		{"stream=long-snapshot", f.long, []command.Option{money.Snapshots(money.SnapshotEvery)}},
		{"stream=long-replay", f.long, nil},
		{"stream=new", f.short, []command.Option{money.Snapshots(money.SnapshotEvery)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var version int64
			for b.Loop() {
				r := command.NewRunner(f.store, f.codec, append([]command.Option{command.WithLogger(f.quiet)}, bc.opts...)...)
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

// BenchmarkAccountRead is what a quote or a staff check costs on a 10,000-event account with a
// snapshot: command.Read lends the aggregate the runner holds, command.Load builds one of the
// caller's own (a restore from the snapshot and a replay of the events after it); cold is a
// fresh runner per read, warm one runner that has the stream already.
//
//	go test ./app/money -run '^$' -bench AccountRead -count 6 | benchstat -col /op -
func BenchmarkAccountRead(b *testing.B) {
	ctx := context.Background()
	f := newLongAccount(b)
	stream := eventstore.StreamID(account.Stream(f.long))
	ops := map[string]func(*command.Runner) (int64, error){
		"load": func(r *command.Runner) (int64, error) {
			acc, err := command.Load(ctx, r, stream, account.NewFor(f.long))
			if err != nil {
				return 0, err
			}
			return acc.Version(), nil
		},
		"read": func(r *command.Runner) (v int64, err error) {
			err = command.Read(ctx, r, stream, account.NewFor(f.long), func(acc *account.Account) error {
				v = acc.Version()
				return nil
			})
			return v, err
		},
	}
	for _, warm := range []bool{false, true} {
		for _, op := range []string{"load", "read"} {
			name := "cold"
			if warm {
				name = "warm"
			}
			b.Run(name+"/op="+op, func(b *testing.B) {
				r := f.runner()
				var version int64
				for b.Loop() {
					if !warm {
						r = f.runner()
					}
					v, err := ops[op](r)
					if err != nil {
						b.Fatal(err)
					}
					version = v
				}
				if version < 10_000 {
					b.Fatalf("read version %d", version)
				}
			})
		}
	}
}

// longAccount is a database with two money streams: long, of 10,000 events and a snapshot
// near its end, and short, of 7.
type longAccount struct {
	long, short string
	store       *postgres.Store
	codec       *eventstore.Registry
	quiet       *slog.Logger
}

// runner is a runner as serve has, with an empty cache.
func (f *longAccount) runner() *command.Runner {
	return command.NewRunner(f.store, f.codec, command.WithLogger(f.quiet), money.Snapshots(money.SnapshotEvery))
}

// TestALongAccountsCommandLeavesItsSnapshot: a command that takes a money stream past the
// snapshot interval saves the account's snapshot (newLongAccount fails without one).
func TestALongAccountsCommandLeavesItsSnapshot(t *testing.T) {
	t.Parallel()
	newLongAccount(t)
}

func newLongAccount(b testing.TB) *longAccount {
	b.Helper()
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
	writer := command.NewRunner(store, codec, command.WithLogger(quiet), money.Snapshots(money.SnapshotEvery))
	if _, err := command.Execute(ctx, writer, longStream, account.NewFor(long), eventstore.Metadata{}, func(a *account.Account) error {
		return a.CreditReferralBonus("01a22600-0000-7000-8000-0000000000ff", dmoney.MustParse("1"), time.Now())
	}); err != nil {
		b.Fatal(err)
	}
	writer.SnapshotsSaved()
	var snapshotAt int64
	if err := pool.QueryRow(ctx, `SELECT version FROM snapshots WHERE stream_id = $1`, string(longStream)).Scan(&snapshotAt); err != nil {
		b.Fatalf("no snapshot of the long account: %v", err)
	}
	return &longAccount{long: long, short: short, store: store, codec: codec, quiet: quiet}
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
