// Command moneylog writes a realistic log of money events into a migrated database, for
// timing `clearvest events verify` on a large log (scripts/bench-verify.sh, docs/benchmarks.md):
// -users investors, each living through cycles of deposits (requested, then confirmed, now and
// then rejected), investments (requested, activated or rejected, and matured at the end of their
// term), withdrawals (requested with the published fee, approved or rejected, now and then
// the fee of an approved one waived), until the log holds -events events. Every event comes from the account
// aggregate's own commands, so the log is one the product could have written, and is appended
// through the event store (eventstore/postgres, Store.Append with the expected versions) in
// batches of several investors' streams.
//
//	moneylog -db DATABASE_URL -events 1000000 -users 10000
//
// With -user, it writes one stream instead: that user's account with a history of -events events
// (scripts/bench-scale.sh: the command on an account with a long history), its steps a few hours
// apart from 2022 on, and every investment matured at the end, so the account has nothing due.
//
//	moneylog -db DATABASE_URL -user USER_ID -events 10000
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"clearvest/domain/account"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "moneylog: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	dbURL := flag.String("db", "", "database URL (migrated with clearvest migrate)")
	total := flag.Int("events", 1_000_000, "events to write (about)")
	users := flag.Int("users", 10_000, "investors")
	batch := flag.Int("batch", 20, "investors' streams per append")
	writers := flag.Int("writers", 2, "concurrent appends")
	seed := flag.Uint64("seed", 1, "random seed (the same seed writes the same amounts and choices)")
	user := flag.String("user", "", "write only this user's account stream, of -events events")
	flag.Parse()
	if *dbURL == "" {
		return errors.New("-db is required")
	}
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	store := postgres.New(pool, postgres.WithLogger(slog.New(slog.DiscardHandler)))
	defer store.Close()
	codec := eventstore.NewRegistry()
	account.RegisterEvents(codec)
	if *user != "" {
		a, err := history(*seed, 0, *total, codec, longHistory(*user))
		if err != nil {
			return err
		}
		if _, err := store.Append(ctx, a); err != nil {
			return err
		}
		fmt.Printf("moneylog: %d events in the stream of user %s\n", len(a.Events), *user)
		return nil
	}

	perUser := *total / *users
	start := time.Now()
	var written atomic.Int64
	jobs := make(chan int)
	errc := make(chan error, *writers)
	var wg sync.WaitGroup
	for range *writers {
		wg.Go(func() {
			for first := range jobs {
				var appends []eventstore.StreamAppend
				for u := first; u < min(first+*batch, *users); u++ {
					a, err := history(*seed, u, perUser, codec, investor(u))
					if err != nil {
						errc <- err
						return
					}
					appends = append(appends, a)
				}
				if _, err := store.Append(ctx, appends...); err != nil {
					errc <- err
					return
				}
				n := 0
				for _, a := range appends {
					n += len(a.Events)
				}
				if w := written.Add(int64(n)); w/100_000 != (w-int64(n))/100_000 {
					fmt.Fprintf(os.Stderr, "moneylog: %d events, %.0f events/s\n", w, float64(w)/time.Since(start).Seconds())
				}
			}
		})
	}
	go func() {
		defer close(jobs)
		for u := 0; u < *users; u += *batch {
			select {
			case jobs <- u:
			case <-ctx.Done():
				return
			}
		}
	}()
	wg.Wait()
	close(errc)
	if err := <-errc; err != nil {
		return err
	}
	fmt.Printf("moneylog: %d events in %d streams in %.1f s (%.0f events/s)\n", written.Load(), *users,
		time.Since(start).Seconds(), float64(written.Load())/time.Since(start).Seconds())
	return nil
}

var staffID = uuid.NewSHA1(uuid.NameSpaceOID, []byte("moneylog staff")).String()

// terms are the plans investors choose from (the demo catalogue's shape: a rate for the whole
// term and the bounds of the amount).
var terms = []account.Terms{
	{PlanID: "starter", PlanVersion: 1, PlanName: "Starter", TermDays: 30, TermRate: "0.015", Min: usd("50"), Max: usd("5000")},
	{PlanID: "growth", PlanVersion: 1, PlanName: "Growth", TermDays: 90, TermRate: "0.05", Min: usd("100"), Max: usd("20000")},
	{PlanID: "long", PlanVersion: 2, PlanName: "Long Term", TermDays: 180, TermRate: "0.11", Min: usd("500"), Max: usd("50000")},
}

func usd(s string) money.Money {
	m, err := money.Parse(s)
	if err != nil {
		panic(err)
	}
	return m
}

// shape is whose history is written and how it moves through time.
type shape struct {
	userID   string
	start    time.Time
	maxStep  int  // hours between steps: 1 to maxStep
	settleUp bool // at the end, mature every investment still running (nothing left due)
}

// investor is the bulk log's investor u: from January 2025, a few days per step.
func investor(u int) shape {
	return shape{
		userID:  uuid.NewSHA1(uuid.NameSpaceOID, fmt.Appendf(nil, "moneylog investor %d", u)).String(),
		start:   time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC),
		maxStep: 72,
	}
}

// longHistory is one account with thousands of events: steps a few hours apart from 2022, so
// that ten thousand events end before the present, and nothing left running at the end.
func longHistory(userID string) shape {
	return shape{userID: userID, start: time.Date(2022, 1, 1, 9, 0, 0, 0, time.UTC), maxStep: 8, settleUp: true}
}

// history is one investor's stream: about n events from the aggregate's commands.
func history(seed uint64, u, n int, codec *eventstore.Registry, sh shape) (eventstore.StreamAppend, error) {
	rng := rand.New(rand.NewPCG(seed, uint64(u)))
	userID := sh.userID
	a := account.New(userID)
	at := sh.start.Add(time.Duration(rng.IntN(30*24)) * time.Hour)
	amount := func(lo, hi int) money.Money { return usd(fmt.Sprintf("%d.%02d", lo+rng.IntN(hi-lo), rng.IntN(100))) }
	id := func() string { return uuid.Must(uuid.NewV7()).String() }
	check := func(err error) {
		if err != nil {
			panic(fmt.Sprintf("investor %d at %s: %v", u, at, err))
		}
	}
	for len(a.Changes()) < n {
		at = at.Add(time.Duration(1+rng.IntN(sh.maxStep)) * time.Hour)
		// Investments whose term ended are paid out first, as the maturity job does.
		for _, inv := range a.Due(at) {
			if len(a.Changes()) >= n {
				break
			}
			check(a.MatureInvestment(inv, at))
		}
		switch r := rng.IntN(10); {
		case r < 4 || a.Available().LessThan(usd("100")): // a deposit
			d := id()
			amt := amount(100, 3000)
			check(a.RequestDeposit(account.DepositRequest{
				DepositID: d, TransactionID: fmt.Sprintf("DEP-%04X-%04X", u&0xffff, len(a.Changes())&0xffff), Amount: amt,
				Asset: "USDT", Network: "TRC20", OnChainAmount: amt.Decimal().StringFixed(6), USDRate: "1",
				Address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
			}, at))
			if rng.IntN(10) == 0 {
				check(a.RejectDeposit(d, "Nothing arrived", staffID, at.Add(time.Hour)))
			} else {
				check(a.ConfirmDeposit(d, amt, "", staffID, at.Add(time.Hour)))
			}
		case r < 8: // an investment of part of what is available
			t := terms[rng.IntN(len(terms))]
			amt := a.Available().Decimal().Mul(decimalFraction(rng)).Floor()
			m, err := money.Parse(amt.String())
			check(err)
			if m.LessThan(t.Min) {
				continue
			}
			if t.Max.LessThan(m) {
				m = t.Max
			}
			inv := id()
			check(a.RequestInvestment(inv, t, m, at))
			if rng.IntN(12) == 0 {
				check(a.RejectInvestment(inv, "Plan closed to new investments", staffID, at.Add(2*time.Hour)))
			} else {
				check(a.ActivateInvestment(inv, staffID, at.Add(2*time.Hour)))
			}
		default: // a withdrawal with the published fee
			amt := a.Available().Decimal().Mul(decimalFraction(rng)).Floor()
			m, err := money.Parse(amt.String())
			check(err)
			if m.LessThan(usd("20")) {
				continue
			}
			w := id()
			check(a.RequestWithdrawal(account.WithdrawalRequest{
				WithdrawalID: w, Amount: m, Fee: usd("1.00"), Address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", Network: "TRC20", Asset: "USDT",
			}, at))
			switch rng.IntN(10) {
			case 0:
				check(a.RejectWithdrawal(w, "Address could not be confirmed", staffID, at.Add(3*time.Hour)))
			case 1:
				check(a.ApproveWithdrawal(w, account.Payout{TxHash: fmt.Sprintf("0x%064x", rng.Uint64())}, staffID, at.Add(3*time.Hour)))
				check(a.WaiveFee(w, usd("1.00"), "Goodwill", staffID, at.Add(4*time.Hour)))
			default:
				check(a.ApproveWithdrawal(w, account.Payout{TxHash: fmt.Sprintf("0x%064x", rng.Uint64())}, staffID, at.Add(3*time.Hour)))
			}
		}
	}
	if sh.settleUp {
		// The longest term is 180 days: after it, everything running is due.
		at = at.Add(181 * 24 * time.Hour)
		for _, inv := range a.Due(at) {
			check(a.MatureInvestment(inv, at))
		}
	}
	meta := eventstore.Metadata{ActorID: staffID, ActorRole: "admin"}
	stream := eventstore.StreamID(account.Stream(userID))
	changes := a.Changes()
	events := make([]eventstore.NewEvent, 0, len(changes))
	for _, e := range changes {
		ne, err := codec.EncodeFor(stream, e, meta)
		if err != nil {
			return eventstore.StreamAppend{}, err
		}
		events = append(events, ne)
	}
	return eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.NoStream, Events: events}, nil
}

// decimalFraction is a share between 0.20 and 0.79 of what is available.
func decimalFraction(rng *rand.Rand) decimal.Decimal { return decimal.New(int64(20+rng.IntN(60)), -2) }
