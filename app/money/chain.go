package money

import (
	"context"
	"crypto/sha256"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/domain/identity"
	"clearvest/domain/money"
	"clearvest/domain/payout"
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

// ChainRecorded is what RecordChainDeposit did with a transfer.
type ChainRecorded struct {
	// DepositID is the deposit the transfer is credited on: the one derived from the transfer,
	// or the one the investor declared for the same transaction, which it was linked to.
	DepositID string
	// ByHand is set when staff had already confirmed that declared deposit: the transfer is
	// credited, and must not be again. Received is what they credited.
	ByHand   bool
	Received money.Money
	Position int64
}

// RecordChainDeposit records a pending deposit for a transfer the chain watcher saw, or links
// the transfer to the deposit its investor declared for the same transaction (docs/chain.md,
// "Declared and detected deposits"). A deposit already recorded or linked raises nothing.
// Changes of other streams carried in ctx (command.WithAlongside, the transfer's own stream)
// commit with it or not at all. The investor's open-deposit quota does not apply: the money
// has been sent.
func (s *Service) RecordChainDeposit(ctx context.Context, d ChainDeposit) (ChainRecorded, error) {
	hash := d.TxHash
	if h, err := payout.CanonicalTxHash(payout.Network(d.Network), d.TxHash); err == nil {
		hash = h
	}
	for range maxClaimReads {
		// The transaction's claim is read before the command decides, which sends everything in
		// one round trip (command.Submit); the round trip checks the claim is still the one read
		// (money_chain_claim_held), so a declaration that commits in between is read here again.
		c, err := s.claimOf(ctx, d.Network, hash)
		if err != nil {
			return ChainRecorded{}, err
		}
		if s.claimRead != nil {
			s.claimRead()
		}
		out, err := s.recordChainDeposit(ctx, d, hash, c)
		if !errors.Is(err, errClaimMoved) {
			return out, err
		}
	}
	return ChainRecorded{}, ErrChainClaimBusy
}

// maxClaimReads bounds how often one sighting reads the transaction's claim again. The claim
// moves once at most (it is written once, and never changed), so a second read decides.
const maxClaimReads = 3

// errClaimMoved: the transaction's claim changed between its read and the command's round trip.
var errClaimMoved = errors.New("money: the transaction's claim changed since it was read")

// ErrChainClaimBusy is returned when the claim kept changing under every read; the chain watcher
// tries the sighting again on its next pass.
var ErrChainClaimBusy = errors.New("money: the transaction's claim kept changing; try again")

func (s *Service) recordChainDeposit(ctx context.Context, d ChainDeposit, hash string, c chainClaim) (ChainRecorded, error) {
	req := account.DepositRequest{DepositID: d.DepositID, TransactionID: ChainTransactionID(d.DepositID), Amount: d.Amount,
		Asset: d.Asset, Network: d.Network, OnChainAmount: d.OnChainAmount, USDRate: d.USDRate, TxHash: d.TxHash, Address: d.Address}
	var out ChainRecorded
	res, err := command.Submit(ctx, s.commands, accountStream(d.UserID), account.NewFor(d.UserID), chainMeta,
		func(acc *account.Account, w *command.Writes) error {
			out = ChainRecorded{DepositID: d.DepositID}
			before := acc.Version()
			now := s.clock.Now()
			_, existed := acc.Deposit(d.DepositID)
			linked, wasLinked := acc.ChainLinked(d.DepositID)
			switch {
			case existed:
			case wasLinked:
				out.DepositID = linked.ID
			default:
				if c.byDeposit && c.userID == d.UserID {
					err := acc.LinkDepositToChain(c.depositID, account.ChainLink{ChainDepositID: d.DepositID, TxHash: hash,
						Address: d.Address, Asset: d.Asset, OnChainAmount: d.OnChainAmount}, now)
					switch {
					case err == nil:
						out.DepositID, wasLinked = c.depositID, true
						linked, _ = acc.Deposit(c.depositID)
					case !errors.Is(err, account.ErrDepositDecided):
						return err
					}
					// Rejected by staff, or linked to another transfer of the transaction: this
					// transfer is a deposit of its own.
				}
				if !wasLinked {
					if err := acc.RecordChainDeposit(req, now); err != nil {
						return err
					}
				}
			}
			if wasLinked && linked.Status == account.StatusConfirmed {
				out.ByHand, out.Received = true, linked.Received
			}
			if acc.Version() == before {
				return nil
			}
			ref := c.ref
			if !wasLinked {
				// The reference lets staff find it like a declared deposit. The hash's claim keeps
				// an investor from declaring the same transaction by hand afterwards; a
				// transaction paying two addresses claims it once.
				w.Add(`INSERT INTO money_deposit_refs (transaction_id, user_id, deposit_id, created_at) VALUES ($1, $2, $3, $4)
					ON CONFLICT DO NOTHING`, req.TransactionID, d.UserID, d.DepositID, now)
				w.Add(`INSERT INTO money_chain_tx_hashes (network, tx_hash, kind, ref, created_at) VALUES ($1, $2, 'deposit', $3, $4)
					ON CONFLICT DO NOTHING`, d.Network, hash, req.TransactionID, now)
				if ref == "" {
					ref = req.TransactionID
				}
			}
			// The claim's row lock orders this against a staff confirmation of a deposit another
			// investor declared for the transaction (paidToNoOther): whichever commits second
			// sees the other.
			w.Add(`SELECT money_chain_claim_held($1, $2, $3)`, d.Network, hash, ref)
			w.OnViolation("money_chain_claim_moved", errClaimMoved)
			w.Add(`INSERT INTO money_chain_sightings (network, tx_hash, user_id, deposit_id, created_at) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT DO NOTHING`, d.Network, hash, d.UserID, out.DepositID, now)
			return nil
		})
	if err != nil {
		return ChainRecorded{}, err
	}
	out.Position = res.Position
	return out, nil
}

// chainClaim is a transaction's claim as read before a sighting is decided: the reference it
// names (none when unclaimed) and, when a deposit claimed it, whose deposit that is: one the
// investor declared by hand, or another transfer of the same transaction.
type chainClaim struct {
	ref               string
	byDeposit         bool
	userID, depositID string
}

// claimOf reads a transaction's claim and, when a deposit claimed it, that deposit's owner.
func (s *Service) claimOf(ctx context.Context, network, hash string) (chainClaim, error) {
	var c chainClaim
	var userID, depositID *string
	err := s.pool.QueryRow(ctx, `SELECT h.ref, r.user_id, r.deposit_id FROM money_chain_tx_hashes h
		LEFT JOIN money_deposit_refs r ON h.kind = 'deposit' AND r.transaction_id = h.ref
		WHERE h.network = $1 AND h.tx_hash = $2`, network, hash).Scan(&c.ref, &userID, &depositID)
	if errors.Is(err, pgx.ErrNoRows) {
		return chainClaim{}, nil
	}
	if err != nil {
		return chainClaim{}, err
	}
	if userID != nil && depositID != nil {
		c.byDeposit, c.userID, c.depositID = true, *userID, *depositID
	}
	return c, nil
}

// notPaidToAnother refuses the confirmation of a deposit declared for a transaction the chain
// watcher saw pay another investor's own address, as the books are now: checked before a
// proposal is made, so that nobody is asked to approve what is refused anyway.
func (s *Service) notPaidToAnother(ctx context.Context, userID string, d account.Deposit) error {
	if d.TxHash == "" {
		return nil
	}
	var other bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM money_chain_sightings WHERE network = $1 AND tx_hash = $2 AND user_id <> $3)`,
		d.Network, d.TxHash, userID).Scan(&other); err != nil {
		return err
	}
	if other {
		return ErrPaidAnotherInvestor
	}
	return nil
}

// paidToNoOther is notPaidToAnother in the confirmation's own transaction: a statement that
// takes the hash claim's row lock, which RecordChainDeposit takes too, so the two are ordered,
// and fails the confirmation with ErrPaidAnotherInvestor (migrations/0007).
func paidToNoOther(w *command.Writes, userID string, d account.Deposit) {
	if d.TxHash == "" {
		return
	}
	w.Add(`SELECT money_not_paid_to_another($1, $2, $3)`, d.Network, d.TxHash, userID)
	w.OnViolation("money_paid_to_another", ErrPaidAnotherInvestor)
}

// ConfirmChainDeposit credits a chain deposit whose transfer reached its confirmations and
// e-mails the investor, in one round trip (command.Submit). A deposit already decided raises
// nothing (and mails nothing). Changes carried in ctx (command.WithAlongside) commit with it,
// even then.
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
	res, err := command.Submit(ctx, s.commands, accountStream(userID), account.NewFor(userID), chainMeta,
		func(acc *account.Account, w *command.Writes) error {
			before := acc.Version()
			if err := rule(acc, s.clock.Now()); err != nil {
				return err
			}
			if acc.Version() == before || u == nil || u.Status() == identity.StatusClosed || u.Email() == "" {
				return nil
			}
			d, ok := acc.Deposit(depositID)
			if !ok {
				d, _ = acc.ChainLinked(depositID)
			}
			template, data := message(u.Profile().Name, d)
			return s.addMail(ctx, w, "deposit/"+d.TransactionID+"/"+template, u.Email(), u.Language(), template, data)
		})
	if err != nil {
		return 0, err
	}
	s.kick()
	return res.Position, nil
}
