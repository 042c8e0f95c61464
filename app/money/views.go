package money

import (
	"clearvest/platform/pgread"
	"context"
	"fmt"
	"strings"

	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/domain/money"
	"clearvest/projections/keyset"
	"clearvest/projections/ledger"
	"clearvest/projections/wallets"
	"clearvest/projections/withdrawals"
)

// Deposit returns one deposit to its owner or to staff; anyone else gets a 404, as for a
// deposit that does not exist. It reads the wallets read model, as fresh as the caller's
// position (read-your-writes).
func (s *Service) Deposit(ctx context.Context, a Actor, transactionID string) (Deposit, error) {
	d, err := wallets.ByTransactionID(ctx, pgread.On(ctx, s.pool), strings.ToUpper(strings.TrimSpace(transactionID)))
	if err != nil {
		return Deposit{}, err
	}
	if d.UserID != a.UserID && !a.Role.IsStaff() {
		return Deposit{}, ErrDepositNotFound
	}
	return d, nil
}

// PendingChainDeposits lists the caller's pending deposits the chain watcher decides: the
// dashboard shows their confirmations.
func (s *Service) PendingChainDeposits(ctx context.Context, a Actor) ([]Deposit, error) {
	return wallets.PendingChainOf(ctx, pgread.On(ctx, s.pool), a.UserID)
}

// PendingDepositPage reads a page of the staff's deposit queue, oldest first: limit deposits
// (nil: keyset.DefaultLimit, at most keyset.MaxLimit) after cursor ("" from the start).
func (s *Service) PendingDepositPage(ctx context.Context, cursor string, limit *int) (keyset.Page[Deposit], error) {
	return keyset.Read(cursor, limit, func(after *keyset.Cursor, n int) ([]Deposit, int, bool, error) {
		return wallets.PendingPage(ctx, pgread.On(ctx, s.pool), after, n)
	}, func(d Deposit) keyset.Cursor { return keyset.Cursor{At: d.RequestedAt, ID: d.TransactionID} })
}

// DepositsForStaff counts the pending deposits waiting for a staff decision (declared ones; the
// watcher decides chain deposits), for the staff navigation's count.
func (s *Service) DepositsForStaff(ctx context.Context) (int, error) {
	return wallets.PendingForStaff(ctx, pgread.On(ctx, s.pool))
}

// FiguresJoin reads a user's dashboard figures in the same query as their users row
// (accounts.Service.UserWith); its Balances are the figures once that query ran.
func (s *Service) FiguresJoin() *ledger.Joined { return ledger.JoinFigures("u.id") }

// FiguresOf returns the dashboard figures of the users named, for the staff user list: every
// one of them, zeros for a user with no money yet. An error means none could be read; the
// caller shows them as unavailable, never as zeros.
func (s *Service) FiguresOf(ctx context.Context, userIDs []string) (map[string]account.Balances, error) {
	found, err := ledger.FiguresOf(ctx, pgread.On(ctx, s.pool), userIDs)
	if err != nil {
		return nil, fmt.Errorf("money: figures: %w", err)
	}
	out := make(map[string]account.Balances, len(userIDs))
	for _, id := range userIDs {
		out[id] = found[id]
	}
	return out, nil
}

// AccountPosition is the global position of the last event of userID's money stream (0 before
// their first deposit): once the read models have passed it, Balances shows everything the
// account holds now (the sign-in answer waits for it).
func (s *Service) AccountPosition(ctx context.Context, userID string) (int64, error) {
	return command.Position(ctx, s.commands, accountStream(userID))
}

// Balances returns a user's dashboard figures from the wallets read model.
func (s *Service) Balances(ctx context.Context, userID string) (account.Balances, error) {
	return wallets.Balances(ctx, pgread.On(ctx, s.pool), userID)
}

// PendingWithdrawalPage reads a page of the withdrawal queue, oldest first, as
// PendingDepositPage does.
func (s *Service) PendingWithdrawalPage(ctx context.Context, cursor string, limit *int) (keyset.Page[Withdrawal], error) {
	return keyset.Read(cursor, limit, func(after *keyset.Cursor, n int) ([]Withdrawal, int, bool, error) {
		return withdrawals.PendingPage(ctx, pgread.On(ctx, s.pool), after, n)
	}, func(w Withdrawal) keyset.Cursor { return keyset.Cursor{At: w.RequestedAt, ID: w.ID} })
}

// DepositedOf returns what each of the users named has deposited (their confirmed deposits, as
// received), for the staff user list: every one of them, zero for a user with none.
func (s *Service) DepositedOf(ctx context.Context, userIDs []string) (map[string]money.Money, error) {
	found, err := wallets.DepositedOf(ctx, pgread.On(ctx, s.pool), userIDs)
	if err != nil {
		return nil, fmt.Errorf("money: deposited: %w", err)
	}
	out := make(map[string]money.Money, len(userIDs))
	for _, id := range userIDs {
		out[id] = found[id]
	}
	return out, nil
}
