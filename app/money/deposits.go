package money

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"clearvest/app/approvals"
	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/domain/asset"
	"clearvest/domain/identity"
	"clearvest/domain/money"
	"clearvest/domain/payout"
	"clearvest/domain/proposal"
	"clearvest/platform/mail"
	"clearvest/projections/wallets"
)

// accountPage is where an investor goes after a decision.
const accountPage = "/my-account"

// DepositInput is what an investor states when they say they sent crypto.
type DepositInput struct {
	Amount  string // USD, a decimal string
	Asset   string
	Network string
	// OnChainAmount is how much of the asset was sent. For USDT it is the USD amount (1 USDT is
	// taken as 1 USD) and may be left empty; for BTC and ETH, which have no price here, it is
	// required, and the rate recorded is the one it implies (Amount ÷ OnChainAmount).
	OnChainAmount string
	TxHash        string // optional
}

// Deposit is one deposit as its owner and staff see it: the wallets read model's row, so the
// shape is defined once.
type Deposit = wallets.Deposit

// Created is a new deposit and the position of its event, for read-your-writes.
type Created struct {
	Deposit  Deposit
	Position int64
}

// errTransactionIDTaken is a transaction id drawn twice; CreateDeposit draws again.
var errTransactionIDTaken = errors.New("money: transaction id taken")

// CreateDeposit records a Pending deposit on the caller's account: the deposit address for the
// asset and network, the amounts and a fresh transaction id; the transaction hash, if any, is
// claimed platform-wide with it. Nothing is credited until staff confirm it. An investor with
// MaxOpenDeposits deposits already waiting is refused (422) until staff decide one.
//
// It runs with command.Submit: the deposit, its reference row, the hash's claim and the check
// that the investor's user stream has not moved commit in one round trip, shared with the
// commands submitted at the same time (docs/benchmarks.md, "Money commands over HTTP").
func (s *Service) CreateDeposit(ctx context.Context, a Actor, in DepositInput) (Created, error) {
	req, err := s.depositRequest(in)
	if err != nil {
		return Created{}, err
	}
	for range 5 {
		req.DepositID, req.TransactionID = uuid.NewString(), newTransactionID()
		created, err := s.create(ctx, a, req)
		if errors.Is(err, errTransactionIDTaken) {
			continue
		}
		return created, err
	}
	return Created{}, errors.New("money: could not draw a free transaction id")
}

// MinDeposit is the smallest deposit a request may state.
func (s *Service) MinDeposit() money.Money { return s.cfg.MinDeposit }

// depositRequest checks what the investor stated; the deposit address is decided with the command
// (depositAddress), and the ids are drawn per attempt.
func (s *Service) depositRequest(in DepositInput) (account.DepositRequest, error) {
	amount, err := money.Parse(strings.TrimSpace(in.Amount))
	if err != nil {
		return account.DepositRequest{}, err
	}
	if _, err := money.Positive(amount); err != nil {
		return account.DepositRequest{}, err
	}
	if err := s.checkCeiling(amount, "amount"); err != nil {
		return account.DepositRequest{}, err
	}
	if amount.LessThan(s.cfg.MinDeposit) {
		return account.DepositRequest{}, ErrBelowMinDeposit.WithMessage("The minimum deposit is " + s.cfg.MinDeposit.Dollars() + ".")
	}
	as, err := asset.Parse(strings.TrimSpace(in.Asset))
	if err != nil {
		return account.DepositRequest{}, account.ErrInvalidAsset
	}
	network, err := payout.ParseNetwork(strings.TrimSpace(in.Network))
	if err != nil {
		return account.DepositRequest{}, account.ErrInvalidNetwork
	}
	if err := payout.CheckRoute(as, network); err != nil {
		return account.DepositRequest{}, account.ErrInvalidNetwork.WithMessage(as.Name() + " cannot be sent on " + network.Name())
	}
	onChain, rate, err := onChainAndRate(as, amount, in.OnChainAmount)
	if err != nil {
		return account.DepositRequest{}, err
	}
	txHash := strings.TrimSpace(in.TxHash)
	if txHash != "" {
		if txHash, err = payout.CanonicalTxHash(network, txHash); err != nil {
			return account.DepositRequest{}, err
		}
	}
	return account.DepositRequest{Amount: amount, Asset: string(as), Network: string(network), OnChainAmount: onChain,
		USDRate: rate, TxHash: txHash}, nil
}

func (s *Service) create(ctx context.Context, a Actor, req account.DepositRequest) (Created, error) {
	var d account.Deposit
	res, err := command.Submit(ctx, s.commands, accountStream(a.UserID), account.NewFor(a.UserID), metaFor(a),
		func(acc *account.Account, w *command.Writes) error {
			if _, err := s.verifiedUser(w, a.UserID, ErrNotVerified); err != nil {
				return err
			}
			address, err := s.depositAddress(w, asset.Asset(req.Asset), payout.Network(req.Network))
			if err != nil {
				return err
			}
			req.Address = address
			// The quota is checked on the state this request is decided on: two requests racing
			// for the last free place are decided one after the other, and the second is refused.
			if s.cfg.MaxOpenDeposits > 0 {
				if err := acc.AllowAnotherDeposit(s.cfg.MaxOpenDeposits); err != nil {
					return err
				}
			}
			now := s.clock.Now()
			if err := acc.RequestDeposit(req, now); err != nil {
				return err
			}
			w.Add(`INSERT INTO money_deposit_refs (transaction_id, user_id, deposit_id, created_at) VALUES ($1, $2, $3, $4)`,
				req.TransactionID, a.UserID, req.DepositID, now)
			w.OnUnique("money_deposit_refs_pkey", errTransactionIDTaken)
			if req.TxHash != "" {
				// req.TxHash is canonical (depositRequest), so every spelling of one hash claims
				// the same row.
				w.Add(`INSERT INTO money_chain_tx_hashes (network, tx_hash, kind, ref, created_at) VALUES ($1, $2, 'deposit', $3, $4)`,
					req.Network, req.TxHash, req.TransactionID, now)
				w.OnUnique("money_chain_tx_hashes_pkey", ErrTxHashUsed)
			}
			d, _ = acc.Deposit(req.DepositID)
			return nil
		})
	if err != nil {
		return Created{}, err
	}
	if res.IdempotentReplay {
		if d, err = requested(a.UserID, res.Raised, func(e account.DepositRequested) string { return e.DepositID }, (*account.Account).Deposit); err != nil {
			return Created{}, err
		}
	}
	return Created{Deposit: fromAggregate(a.UserID, d), Position: res.Position}, nil
}

// onChainAndRate works out what the deposit records in the asset. USDT is taken at 1 USD, so its
// on-chain amount is the USD amount with six decimals. BTC and ETH have no price feed here: the
// investor says how much they sent, and the rate recorded is the one their two figures imply.
// Staff credit what actually arrived either way.
func onChainAndRate(as asset.Asset, amount money.Money, stated string) (string, string, error) {
	if as == asset.USDT {
		return amount.Decimal().StringFixed(int32(as.Decimals())), "1", nil
	}
	stated = strings.TrimSpace(stated)
	if stated == "" {
		return "", "", ErrOnChainRequired
	}
	x, err := asset.ParseAmount(as, stated)
	if err != nil || x.IsZero() {
		return "", "", account.ErrInvalidOnChain
	}
	r := amount.Decimal().Div(x.Decimal()).RoundBank(asset.MaxRateDecimals)
	rate, err := asset.ParseRate(r.String())
	if err != nil {
		return "", "", ErrOnChainMismatch
	}
	return x.String(), rate.String(), nil
}

// transactionAlphabet leaves out characters people confuse when they read an id aloud (0/O,
// 1/I/L).
const transactionAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"

// newTransactionID draws a human-friendly id like DEP-7K3Q-9XM2: 31^8 (about 8.5 × 10^11)
// possibilities; the money_deposit_refs key makes it unique and a collision draws again.
func newTransactionID() string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	out := []byte("DEP-XXXX-XXXX")
	pos := []int{4, 5, 6, 7, 9, 10, 11, 12}
	for i, p := range pos {
		out[p] = transactionAlphabet[int(b[i])%len(transactionAlphabet)]
	}
	return string(out)
}

// DecisionInput is a staff decision on a deposit.
type DecisionInput struct {
	TransactionID string
	Received      string // USD actually received; confirmations only
	Notes         string
}

// ConfirmDeposit credits what actually arrived to the investor's wallet and e-mails them, in
// one transaction. A second decision is a 409. When what arrived differs from what the investor
// declared beyond the tolerance, or is above the threshold, nothing is credited yet: the
// confirmation becomes a proposal that a second staff member approves (Decision.ProposalID),
// and the notes are its required reason.
func (s *Service) ConfirmDeposit(ctx context.Context, a Actor, in DecisionInput) (Decision, error) {
	received, err := money.Parse(strings.TrimSpace(in.Received))
	if err != nil {
		return Decision{}, err
	}
	if _, err := money.Positive(received); err != nil {
		return Decision{}, err
	}
	if err := s.checkCeiling(received, "amount"); err != nil {
		return Decision{}, err
	}
	userID, depositID, err := s.ref(ctx, in.TransactionID)
	if err != nil {
		return Decision{}, err
	}
	d, p, err := s.confirmable(ctx, a, userID, depositID)
	if err != nil {
		return s.earlierOr(ctx, err, userID, proposal.KindDepositConfirmation, strings.ToUpper(strings.TrimSpace(in.TransactionID)))
	}
	why, err := s.depositNeedsSecond(ctx, d.Amount, received)
	if err != nil {
		return Decision{}, err
	}
	if why != "" && s.approvals != nil {
		if strings.TrimSpace(in.Notes) == "" {
			return Decision{}, ErrReasonForSecond
		}
		return s.propose(ctx, a, approvals.Request{Kind: proposal.KindDepositConfirmation, SubjectID: d.TransactionID,
			UserID: userID, Amount: received, Why: why, Reason: in.Notes,
			Params: map[string]string{"received": received.String(), "notes": strings.TrimSpace(in.Notes)}})
	}
	pos, err := s.decide(ctx, a, p, depositID, func(acc *account.Account, depositID string, at time.Time) error {
		return acc.ConfirmDeposit(depositID, received, in.Notes, a.UserID, at)
	}, s.confirmedMessage, paidToNoOther)
	return Decision{Position: pos}, err
}

// confirmable checks, before a confirmation is decided or proposed, that the deposit may be
// confirmed by a: the second staff member is not asked to approve what the account refuses
// anyway (the account checks it again when the decision is taken).
func (s *Service) confirmable(ctx context.Context, a Actor, userID, depositID string) (account.Deposit, party, error) {
	d, ok, err := readRequest(ctx, s, userID, func(acc *account.Account) (account.Deposit, bool) { return acc.Deposit(depositID) })
	switch {
	case err != nil:
		return account.Deposit{}, party{}, err
	case !ok:
		return account.Deposit{}, party{}, ErrDepositNotFound
	case d.Source == account.SourceChain:
		return account.Deposit{}, party{}, account.ErrChainDeposit
	case d.Status != account.StatusPending:
		return account.Deposit{}, party{}, account.ErrDepositDecided
	}
	if err := s.notPaidToAnother(ctx, userID, d); err != nil {
		return account.Deposit{}, party{}, err
	}
	p, err := s.deciderFor(ctx, a, userID, proposal.KindDepositConfirmation, d.TransactionID)
	if err != nil {
		return account.Deposit{}, party{}, err
	}
	return d, p, nil
}

// RejectDeposit closes a deposit without crediting anything and e-mails the investor, in one
// transaction. A second decision is a 409, and so is a rejection while a proposal to confirm
// the deposit waits for a second staff member.
func (s *Service) RejectDeposit(ctx context.Context, a Actor, in DecisionInput) (int64, error) {
	if err := s.awaitingSecond(ctx, proposal.KindDepositConfirmation, strings.ToUpper(strings.TrimSpace(in.TransactionID))); err != nil {
		return 0, err
	}
	return s.decideDeposit(ctx, a, in.TransactionID, func(acc *account.Account, depositID string, at time.Time) error {
		return acc.RejectDeposit(depositID, in.Notes, a.UserID, at)
	}, func(name string, d account.Deposit) (string, any) {
		return mail.TemplateDepositRejected, mail.DepositRejectedData{Name: name, TransactionID: d.TransactionID,
			Amount: d.Amount.Dollars(), Asset: d.Asset, Notes: d.Notes, Link: s.cfg.PublicURL + accountPage}
	}, nil)
}

// ref finds the account and deposit a transaction id names.
func (s *Service) ref(ctx context.Context, transactionID string) (userID, depositID string, err error) {
	err = s.pool.QueryRow(ctx, `SELECT user_id, deposit_id FROM money_deposit_refs WHERE transaction_id = $1`,
		strings.ToUpper(strings.TrimSpace(transactionID))).Scan(&userID, &depositID)
	if err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return "", "", ErrDepositNotFound
		}
		return "", "", fmt.Errorf("money: deposit ref: %w", err)
	}
	return userID, depositID, nil
}

// decideDeposit runs a staff decision on the deposit transactionID names: its investor is
// loaded and checked (partyFor), and decide runs it.
func (s *Service) decideDeposit(ctx context.Context, a Actor, transactionID string,
	rule func(acc *account.Account, depositID string, at time.Time) error,
	message func(name string, d account.Deposit) (string, any),
	check func(w *command.Writes, userID string, d account.Deposit)) (int64, error) {
	userID, depositID, err := s.ref(ctx, transactionID)
	if err != nil {
		return 0, err
	}
	p, err := s.partyFor(ctx, a, userID)
	if err != nil {
		return 0, err
	}
	return s.decide(ctx, a, p, depositID, rule, message, check)
}

// decide runs a staff decision on deposit depositID of p's account (decideOn): rule decides,
// check adds what the decision's round trip must check, and message is the investor's e-mail.
func (s *Service) decide(ctx context.Context, a Actor, p party, depositID string,
	rule func(acc *account.Account, depositID string, at time.Time) error,
	message func(name string, d account.Deposit) (string, any),
	check func(w *command.Writes, userID string, d account.Deposit)) (int64, error) {
	userID := p.user.ID()
	return s.decideOn(ctx, a, p, func(acc *account.Account, now time.Time) error { return rule(acc, depositID, now) },
		func(w *command.Writes, acc *account.Account, u *identity.User) error {
			d, _ := acc.Deposit(depositID)
			if check != nil {
				check(w, userID, d)
			}
			template, data := message(u.Profile().Name, d)
			// One decision per deposit, so this names the cause: a retried command mails once.
			return s.addMail(ctx, w, "deposit/"+d.TransactionID+"/"+template, u.Email(), u.Language(), template, data)
		})
}

func fromAggregate(userID string, d account.Deposit) Deposit {
	out := Deposit{
		ID: d.ID, TransactionID: d.TransactionID, UserID: userID, Amount: d.Amount, Asset: d.Asset, Network: d.Network,
		Address: d.Address, OnChainAmount: d.OnChainAmount, USDRate: d.USDRate, TxHash: d.TxHash, Status: d.Status,
		Received: d.Received, Notes: d.Notes, Source: d.Source, RequestedAt: d.RequestedAt,
	}
	if !d.DecidedAt.IsZero() {
		t := d.DecidedAt
		out.DecidedAt = &t
	}
	return out
}
