package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
)

// TestEventsBooks runs `clearvest events books` over a money history appended to the store: at
// the head and at an earlier position it prints the figures of that moment, balanced and
// reconciled; a hand-appended correction that takes an account below zero makes it fail. It sets
// environment variables, so it cannot run in parallel.
func TestEventsBooks(t *testing.T) {
	url, cli := operatorShell(t)
	if out, err := cli("migrate"); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	ctx := testCtx(t)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	store := postgres.New(pool)
	t.Cleanup(store.Close)

	m := money.MustParse
	at := time.Now().UTC().Add(-time.Hour)
	staff, alice := uuid.NewString(), uuid.NewString()
	write := func(events ...aggregate.Event) int64 {
		t.Helper()
		var news []eventstore.NewEvent
		for _, e := range events {
			news = append(news, newEvent(t, e.EventName(), e, eventstore.Metadata{}))
		}
		envs := appendVisible(t, store, eventstore.StreamAppend{Stream: eventstore.StreamID(account.Stream(alice)), ExpectedVersion: eventstore.AnyVersion, Events: news})
		return envs[len(envs)-1].Position
	}
	early := write(account.DepositRequested{DepositID: "d1", TransactionID: "T1", Amount: m("100"), Asset: "USDT", Network: "TRC20", OnChainAmount: "100", USDRate: "1", At: at},
		account.DepositConfirmed{DepositID: "d1", Received: m("100"), StaffID: staff, At: at})
	write(account.WithdrawalRequested{WithdrawalID: "w1", Amount: m("40"), Fee: m("2"), Address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", Network: "TRC20", Asset: "USDT", At: at},
		account.WithdrawalApproved{WithdrawalID: "w1", Amount: m("40"), Fee: m("2"), TxHash: strings.Repeat("ab", 32), StaffID: staff, At: at})

	out, err := cli("events", "books")
	if err != nil || !strings.Contains(out, "deposits received 100.00 - payouts sent 38.00 = investor liabilities 60.00 + platform equity 2.00; difference 0.00") ||
		!strings.HasSuffix(out, "balanced and reconciled; OK\n") || !strings.Contains(out, "platform:fee_income") {
		t.Fatalf("books at the head: %v\n%s", err, out)
	}
	out, err = cli("events", "books", "--position", fmt.Sprint(early))
	if err != nil || !strings.Contains(out, fmt.Sprintf("books at position %d", early)) ||
		!strings.Contains(out, "deposits received 100.00 - payouts sent 0.00 = investor liabilities 100.00 + platform equity 0.00; difference 0.00") {
		t.Fatalf("books at %d: %v\n%s", early, err, out)
	}
	if _, err := cli("events", "books", "--position", "-1"); !errors.Is(err, errUsage) {
		t.Errorf("a negative position: %v, want a usage error", err)
	}

	write(account.AdjustmentPosted{AdjustmentID: "a1", Amount: m("-80"), Category: account.CategoryCorrection, Reason: "by hand", StaffID: staff, At: at})
	out, err = cli("events", "books")
	if !errors.Is(err, errBooksOff) || !strings.Contains(out, "user accounts that went below zero: [user:"+alice+":available]") {
		t.Errorf("books with an account below zero: %v\n%s", err, out)
	}
}
