package money

import (
	"context"
	"crypto/sha256"
	"errors"
	"time"

	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/domain/identity"
	"clearvest/domain/money"
	"clearvest/platform/mail"
)

// chainMeta is the metadata of what the chain watcher records: no person, the system.
var chainMeta = metaFor(Actor{Role: "system"})

// ChainDeposit is a deposit the chain watcher saw arrive at an investor's address
// (docs/chain.md, "Watchers"). Its ids are derived from the transfer's key, so a second
// sighting names the same deposit.
type ChainDeposit struct {
	UserID        string
	DepositID     string
	Amount        money.Money // USD estimated at the current rate
	Asset         string
	Network       string
	OnChainAmount string
	USDRate       string
	TxHash        string
	Address       string
}

// ChainTransactionID is the human-friendly reference of a chain deposit, derived from its
// deposit id so every process names it alike: DEP-XXXX-XXXX in the alphabet of declared ones.
func ChainTransactionID(depositID string) string {
	sum := sha256.Sum256([]byte("chain-deposit/" + depositID))
	out := []byte("DEP-XXXX-XXXX")
	pos := []int{4, 5, 6, 7, 9, 10, 11, 12}
	for i, p := range pos {
		out[p] = transactionAlphabet[int(sum[i])%len(transactionAlphabet)]
	}
	return string(out)
}

// RecordChainDeposit records a pending deposit for a transfer the chain watcher saw. A deposit
// already on the account raises nothing. Changes of other streams carried in ctx
// (command.WithAlongside, the transfer's own stream) commit with it or not at all. The
// investor's open-deposit quota does not apply: the money has been sent.
func (s *Service) RecordChainDeposit(ctx context.Context, d ChainDeposit) (int64, error) {
	req := account.DepositRequest{DepositID: d.DepositID, TransactionID: ChainTransactionID(d.DepositID), Amount: d.Amount,
		Asset: d.Asset, Network: d.Network, OnChainAmount: d.OnChainAmount, USDRate: d.USDRate, TxHash: d.TxHash, Address: d.Address}
	res, err := command.Update(ctx, s.commands, accountStream(d.UserID), account.NewFor(d.UserID), chainMeta,
		func(ctx context.Context, acc *account.Account, tx *command.Tx) error {
			_, existed := acc.Deposit(d.DepositID)
			now := s.clock.Now()
			if err := acc.RecordChainDeposit(req, now); err != nil {
				return err
			}
			if err := tx.Append(ctx, command.Change{Stream: accountStream(d.UserID), Aggregate: acc}); err != nil {
				return err
			}
			if existed {
				return nil
			}
			// The reference lets staff find it like a declared deposit. The hash's claim keeps an
			// investor from declaring the same transaction by hand afterwards; a transaction
			// paying two addresses claims it once.
			if _, err := tx.Exec(ctx, `INSERT INTO money_deposit_refs (transaction_id, user_id, deposit_id, created_at) VALUES ($1, $2, $3, $4)`,
				req.TransactionID, d.UserID, d.DepositID, now); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO money_chain_tx_hashes (network, tx_hash, kind, ref, created_at) VALUES ($1, $2, 'deposit', $3, $4)
				ON CONFLICT DO NOTHING`, d.Network, d.TxHash, req.TransactionID, now)
			return err
		})
	if err != nil {
		return 0, err
	}
	return res.Position, nil
}

// ConfirmChainDeposit credits a chain deposit whose transfer reached its confirmations and
// e-mails the investor, in one transaction. A deposit already decided raises nothing (and
// mails nothing). Changes carried in ctx commit with it.
func (s *Service) ConfirmChainDeposit(ctx context.Context, userID, depositID string, received money.Money, rate string, rateAt time.Time, confirmations uint64) (int64, error) {
	return s.decideChain(ctx, userID, depositID, func(acc *account.Account, now time.Time) error {
		return acc.ConfirmChainDeposit(depositID, received, rate, rateAt, confirmations, now)
	}, s.confirmedMessage)
}

// RejectChainDeposit withdraws a chain deposit whose transfer left the chain before it was
// confirmed, with a reason the investor reads, and e-mails them.
func (s *Service) RejectChainDeposit(ctx context.Context, userID, depositID, reason string) (int64, error) {
	return s.decideChain(ctx, userID, depositID, func(acc *account.Account, now time.Time) error {
		return acc.RejectChainDeposit(depositID, reason, now)
	}, func(name string, d account.Deposit) (string, any) {
		return mail.TemplateDepositRejected, mail.DepositRejectedData{Name: name, TransactionID: d.TransactionID,
			Amount: d.Amount.Dollars(), Asset: d.Asset, Notes: d.Notes, Link: s.cfg.PublicURL + accountPage}
	})
}

func (s *Service) decideChain(ctx context.Context, userID, depositID string,
	rule func(acc *account.Account, now time.Time) error,
	message func(name string, d account.Deposit) (string, any)) (int64, error) {
	// An investor whose user record is gone (erased) is still credited what arrived; only the
	// e-mail is left out.
	u, err := s.user(ctx, userID)
	if err != nil && !errors.Is(err, ErrUserNotFound) {
		return 0, err
	}
	res, err := command.Update(ctx, s.commands, accountStream(userID), account.NewFor(userID), chainMeta,
		func(ctx context.Context, acc *account.Account, tx *command.Tx) error {
			before := acc.Version()
			if err := rule(acc, s.clock.Now()); err != nil {
				return err
			}
			raised := acc.Version() != before
			if err := tx.Append(ctx, command.Change{Stream: accountStream(userID), Aggregate: acc}); err != nil {
				return err
			}
			if !raised || u == nil || u.Status() == identity.StatusClosed || u.Email() == "" {
				return nil
			}
			d, _ := acc.Deposit(depositID)
			template, data := message(u.Profile().Name, d)
			subject, text, html, err := s.tmpl.RenderIn(u.Language(), template, data)
			if err != nil {
				return err
			}
			dedupe := "deposit/" + d.TransactionID + "/" + template
			return mail.Enqueue(ctx, tx.Tx, dedupe, mail.Message{To: u.Email(), Subject: subject, Text: text, HTML: html}, false)
		})
	if err != nil {
		return 0, err
	}
	s.kick()
	return res.Position, nil
}
