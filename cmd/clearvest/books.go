package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/jackc/pgx/v5/pgxpool"

	appaudit "clearvest/app/audit"
	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
)

// errBooksOff is the exit status of `events books` when the books do not balance or reconcile;
// what is wrong has been printed.
var errBooksOff = errors.New("events books: the books do not balance or do not reconcile")

// printBooks folds the log up to position into the trial balance (app/audit, the same fold the
// admins' Books screen uses) and prints it with the reconciliation (docs/auditing.md).
func printBooks(ctx context.Context, pool *pgxpool.Pool, store *postgres.Store, codec *eventstore.Registry, position int64, out io.Writer) error {
	if position < 0 {
		return fmt.Errorf("%w: events books: --position must be a position >= 0", errUsage)
	}
	svc, err := appaudit.New(appaudit.Deps{Pool: pool, Store: store, Codec: codec})
	if err != nil {
		return err
	}
	b, err := svc.BooksAt(ctx, position)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "books at position %d (log head %d), %d money events\n\n", b.Position, b.Head, b.Events)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "account\tdebit\tcredit\t")
	cell := func(s string) string {
		if s == "0.00" {
			return ""
		}
		return s
	}
	for _, a := range b.Accounts {
		fmt.Fprintf(w, "%s\t%s\t%s\t\n", a.Account, cell(a.Debit().String()), cell(a.Credit().String()))
	}
	fmt.Fprintf(w, "total\t%s\t%s\t\n", b.TotalDebit, b.TotalCredit)
	if err := w.Flush(); err != nil {
		return err
	}
	r := b.Reconciliation
	fmt.Fprintf(out, "\ndeposits received %s - payouts sent %s = investor liabilities %s + platform equity %s; difference %s\n",
		r.DepositsReceived, r.PayoutsSent, r.InvestorLiabilities, r.PlatformEquity, r.Difference)
	ok := b.Balanced && r.Difference.IsZero() && len(b.WentNegative) == 0
	if len(b.Unbalanced) > 0 {
		fmt.Fprintf(out, "events whose postings do not sum to zero, at positions: %v\n", b.Unbalanced)
	}
	if len(b.WentNegative) > 0 {
		fmt.Fprintf(out, "user accounts that went below zero: %v\n", b.WentNegative)
	}
	if !ok {
		fmt.Fprintln(out, "NOT BALANCED")
		return errBooksOff
	}
	fmt.Fprintln(out, "balanced and reconciled; OK")
	return nil
}
