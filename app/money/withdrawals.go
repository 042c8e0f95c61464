package money

import (
	"clearvest/platform/pgread"
	"context"
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
	"clearvest/domain/domainerr"
	"clearvest/domain/fees"
	"clearvest/domain/identity"
	"clearvest/domain/kyc"
	"clearvest/domain/money"
	"clearvest/domain/payout"
	"clearvest/domain/proposal"
	"clearvest/platform/mail"
	"clearvest/projections/withdrawals"
)

// withdrawalPage is where an e-mail about a withdrawal links to.
const withdrawalPage = "/withdrawal/"

// Withdrawal is one withdrawal as its owner and staff see it: the withdrawals read model's row.
type Withdrawal = withdrawals.Withdrawal

// ErrWithdrawalNotFound is a withdrawal that does not exist or is not the caller's.
var ErrWithdrawalNotFound = account.ErrWithdrawalNotFound

// ErrNotVerifiedWithdrawal refuses a withdrawal from an account whose e-mail is not verified:
// the e-mail is where the request and the payout are confirmed.
var ErrNotVerifiedWithdrawal = domainerr.New(domainerr.Forbidden, "Please verify your email address before requesting a withdrawal.")

// WithdrawalInput is what an investor asks to withdraw and where to.
type WithdrawalInput struct {
	Amount        string // USD taken from the available balance, a decimal string
	WalletAddress string
	Network       string
	// Asset is the coin to pay in; empty means the network's default (DefaultAsset).
	Asset string
	// Fee is the fee the investor was shown, a decimal string: the request is refused (409) when
	// the schedule would now charge another.
	Fee string
}

// WithdrawalQuote is what a withdrawal of an amount costs under the published schedule, shown before the
// user confirms. Without an amount only Minimum and Schedule are set.
type WithdrawalQuote struct {
	Amount   *money.Money
	Fee      money.Money
	Receives money.Money
	// Minimum is the smallest withdrawal; Schedule is the fee alone ("1% + $1.00 (at most
	// $25.00)"), so that a page never shows the minimum as if it were a fee.
	Minimum  money.Money
	Schedule string
	// Address is the wallet address as it will be paid to, when one was given.
	Address string
	// FeeExempt: staff exempted the account from withdrawal fees, so the fee is zero.
	FeeExempt bool
}

// WithdrawalCreated is a new withdrawal and the position of its event, for read-your-writes.
type WithdrawalCreated struct {
	Withdrawal Withdrawal
	Position   int64
}

// DefaultAsset is the coin a withdrawal on a network pays in when none is named: USDT where the
// network carries it (the wallet is in dollars), otherwise the network's own coin.
func DefaultAsset(n payout.Network) asset.Asset {
	assets := n.Assets()
	for _, a := range assets {
		if a == asset.USDT {
			return a
		}
	}
	if len(assets) == 0 {
		return ""
	}
	return assets[0]
}

// FeeSchedule returns the published withdrawal fee schedule.
func (s *Service) FeeSchedule(ctx context.Context) (fees.Schedule, error) { return s.feeSchedule(ctx) }

// QuoteInput is what the withdrawal page asks about before the user confirms; Amount and
// WalletAddress may be empty.
type QuoteInput struct {
	Amount, Network, WalletAddress string
}

// QuoteWithdrawal returns the schedule, and the fee on an amount and what the user would receive;
// it checks the network, the amount against the minimum and the caller's available balance, and
// the address when one is given, as CreateWithdrawal does, so that the form says what is wrong
// before the confirmation step. The balance is read from the account itself, not a read model: a
// deposit confirmed a moment ago counts.
func (s *Service) QuoteWithdrawal(ctx context.Context, a Actor, in QuoteInput) (WithdrawalQuote, error) {
	network, err := parseNetwork(in.Network)
	if err != nil {
		return WithdrawalQuote{}, err
	}
	out, err := s.publishedQuote(ctx)
	if err != nil {
		return WithdrawalQuote{}, err
	}
	var q fees.Quote
	priced := strings.TrimSpace(in.Amount) != ""
	if priced {
		if q, err = s.quote(ctx, in.Amount); err != nil {
			return WithdrawalQuote{}, err
		}
	}
	if err := s.readAccount(ctx, a.UserID, func(acc *account.Account) error {
		out.FeeExempt = acc.FeeExempt()
		if priced {
			return acc.Covers(q.Amount)
		}
		return nil
	}); err != nil {
		return WithdrawalQuote{}, err
	}
	if priced {
		q = exempted(q, out.FeeExempt)
		out.Amount, out.Fee, out.Receives = &q.Amount, q.Fee, q.Net
	}
	if in.WalletAddress != "" {
		if out.Address, err = payout.NormalizeAddress(string(network), in.WalletAddress); err != nil {
			return WithdrawalQuote{}, err
		}
	}
	return out, nil
}

// publishedQuote is a quote of no amount: the minimum and the fee as published.
func (s *Service) publishedQuote(ctx context.Context) (WithdrawalQuote, error) {
	f, err := s.feeSchedule(ctx)
	if err != nil {
		return WithdrawalQuote{}, err
	}
	return WithdrawalQuote{Minimum: f.Minimum(), Schedule: f.FeeString()}, nil
}

// quote is the schedule's quote of an amount written as a decimal string.
func (s *Service) quote(ctx context.Context, amount string) (fees.Quote, error) {
	a, err := s.amount(amount)
	if err != nil {
		return fees.Quote{}, err
	}
	f, err := s.feeSchedule(ctx)
	if err != nil {
		return fees.Quote{}, err
	}
	return f.Quote(a)
}

// amount parses an amount to withdraw written as a decimal string, within the ceiling.
func (s *Service) amount(amount string) (money.Money, error) {
	a, err := money.Parse(strings.TrimSpace(amount))
	if err != nil {
		return money.Money{}, err
	}
	if err := s.checkCeiling(a, "amount"); err != nil {
		return money.Money{}, err
	}
	return a, nil
}

// exempted is q without a fee when the account is exempt from withdrawal fees.
func exempted(q fees.Quote, exempt bool) fees.Quote {
	if exempt {
		q.Fee, q.Net = money.Zero, q.Amount
	}
	return q
}

func parseNetwork(code string) (payout.Network, error) {
	code = strings.TrimSpace(code)
	if code == "" {
		return "", account.ErrInvalidNetwork
	}
	return payout.ParseNetwork(code)
}

// CreateWithdrawal holds amount from the caller's available balance for a payout of amount − fee
// to their wallet, and e-mails them the request, in one transaction. The fee is the published
// schedule's; nothing is charged or paid until staff approve. The address is checked for the
// network (and again by the aggregate), so no money is held for an address that cannot receive.
//
// The request is the investor's, not just their session's: the API lets it through only after a
// fresh step-up. It needs an approved identity check, and is refused for identity.SecurityCooldown
// after a password or two-factor change (identity.User.MayWithdraw). in.Fee is the fee the
// investor saw; another fee than the schedule's is a *FeeChangedError with the current figures,
// and nothing is held.
//
// It runs with command.Submit, as a deposit request does: the hold, its reference row, the
// e-mail and the check of the investor's user stream (verified e-mail, identity check,
// cool-down) commit in one round trip.
func (s *Service) CreateWithdrawal(ctx context.Context, a Actor, in WithdrawalInput) (WithdrawalCreated, error) {
	amount, err := s.amount(in.Amount)
	if err != nil {
		return WithdrawalCreated{}, err
	}
	// The rest of the form is checked now, but a failure waits for the amount's check against
	// the schedule in force, which the command makes: the investor hears of the first problem
	// in the order of the form.
	network, as, address, seen, formErr := withdrawalForm(in)
	// The fee is the schedule's in force when the request commits, or none while the account is
	// exempt: decided on the account as the request is, so an exemption changed a moment ago
	// counts, and so does a schedule changed in another process.
	var f fees.Schedule
	quoted := func(wr *command.Writes) (q fees.Quote, err error) {
		if f, err = s.feeScheduleIn(wr); err != nil {
			return fees.Quote{}, err
		}
		if q, err = f.Quote(amount); err != nil {
			return fees.Quote{}, err
		}
		return q, formErr
	}
	feeFor := func(acc *account.Account, q fees.Quote) (fees.Quote, error) {
		eq := exempted(q, acc.FeeExempt())
		if !seen.Equal(eq.Fee) {
			changed := WithdrawalQuote{Minimum: f.Minimum(), Schedule: f.FeeString()}
			amount := eq.Amount
			changed.Amount, changed.Fee, changed.Receives, changed.Address, changed.FeeExempt = &amount, eq.Fee, eq.Net, address, acc.FeeExempt()
			return fees.Quote{}, &FeeChangedError{Quote: changed}
		}
		return eq, nil
	}
	req := account.WithdrawalRequest{WithdrawalID: uuid.NewString(), Amount: amount,
		Address: address, Network: string(network), Asset: string(as)}
	var (
		w account.Withdrawal
		u *identity.User
	)
	res, err := command.Submit(ctx, s.commands, accountStream(a.UserID), account.NewFor(a.UserID), metaFor(a),
		func(acc *account.Account, wr *command.Writes) error {
			q, err := quoted(wr)
			if err != nil {
				return err
			}
			if u, err = s.verifiedUser(wr, a.UserID, ErrNotVerifiedWithdrawal); err != nil {
				return err
			}
			c, err := command.Consult(wr, userStream(a.UserID), kyc.New)
			if err != nil {
				return err
			}
			if err := kyc.MayWithdraw(c.Status()); err != nil {
				return err
			}
			now := s.clock.Now()
			if err := u.MayWithdraw(now); err != nil {
				return err
			}
			eq, err := feeFor(acc, q)
			if err != nil {
				return err
			}
			req.Fee = eq.Fee
			if err := acc.RequestWithdrawal(req, now); err != nil {
				return err
			}
			wr.Add(`INSERT INTO money_withdrawal_refs (withdrawal_id, user_id, created_at) VALUES ($1, $2, $3)`,
				req.WithdrawalID, a.UserID, now)
			w, _ = acc.Withdrawal(req.WithdrawalID)
			sql, args, err := s.withdrawalMail(ctx, u.Email(), u.Language(), w, mail.TemplateWithdrawalRequested, mail.WithdrawalRequestedData{
				Name: u.Profile().Name, Amount: w.Amount.Dollars(), Fee: w.Fee.Dollars(), Receives: w.Receives().Dollars(),
				Asset: w.Asset, Network: payout.Network(w.Network).Name(), Address: w.Address, Link: s.withdrawalLink(w.ID),
			})
			if err != nil {
				return err
			}
			wr.Add(sql, args...)
			return nil
		})
	if err != nil {
		return WithdrawalCreated{}, err
	}
	if res.IdempotentReplay {
		if w, err = requested(a.UserID, res.Raised, func(e account.WithdrawalRequested) string { return e.WithdrawalID }, (*account.Account).Withdrawal); err != nil {
			return WithdrawalCreated{}, err
		}
		return WithdrawalCreated{Withdrawal: withdrawalFromAggregate(a.UserID, "", "", w), Position: res.Position}, nil
	}
	s.kick()
	return WithdrawalCreated{Withdrawal: withdrawalFromAggregate(a.UserID, u.Profile().Name, u.Email(), w), Position: res.Position}, nil
}

// withdrawalForm checks a withdrawal request's network, asset, address and the fee the investor
// saw.
func withdrawalForm(in WithdrawalInput) (network payout.Network, as asset.Asset, address string, seen money.Money, err error) {
	if network, err = parseNetwork(in.Network); err != nil {
		return
	}
	as = DefaultAsset(network)
	if strings.TrimSpace(in.Asset) != "" {
		if as, err = asset.Parse(strings.TrimSpace(in.Asset)); err != nil {
			err = account.ErrInvalidAsset
			return
		}
	}
	if address, err = payout.NormalizeAddress(string(network), in.WalletAddress); err != nil {
		return
	}
	seen, err = seenFee(in.Fee)
	return
}

// PayoutInput is what staff record when they approve a withdrawal.
type PayoutInput struct {
	WithdrawalID  string
	TxHash        string // required, unless the withdrawal needs a second staff member
	OnChainAmount string // optional: how much of the asset was sent
	USDRate       string // optional: the rate applied
	Reason        string // required when the withdrawal needs a second staff member
}

// ApproveWithdrawal records that staff paid amount − fee out in transaction TxHash: the hold is
// settled, the fee charged, and the investor e-mailed, in one transaction. A second decision is
// a 409; staff cannot decide their own withdrawal. Above the threshold nothing is paid yet: the
// approval becomes a proposal (Decision.ProposalID), and the second staff member pays out and
// records the hash when they approve it.
func (s *Service) ApproveWithdrawal(ctx context.Context, a Actor, in PayoutInput) (Decision, error) {
	userID, err := s.withdrawalOwner(ctx, in.WithdrawalID)
	if err != nil {
		return Decision{}, err
	}
	id := strings.TrimSpace(in.WithdrawalID)
	w, investor, err := s.payable(ctx, a, userID, id)
	if err != nil {
		return s.earlierOr(ctx, err, userID, proposal.KindWithdrawalApproval, id)
	}
	why, err := s.withdrawalNeedsSecond(ctx, w.Amount)
	if err != nil {
		return Decision{}, err
	}
	if why != "" && s.approvals != nil {
		if strings.TrimSpace(in.TxHash) != "" {
			return Decision{}, ErrPayoutBeforeTwo
		}
		if strings.TrimSpace(in.Reason) == "" {
			return Decision{}, ErrPayoutReason
		}
		return s.propose(ctx, a, approvals.Request{Kind: proposal.KindWithdrawalApproval, SubjectID: id, UserID: userID,
			Amount: w.Amount, Why: why, Reason: in.Reason})
	}
	p := account.Payout{TxHash: in.TxHash, OnChainAmount: strings.TrimSpace(in.OnChainAmount), USDRate: strings.TrimSpace(in.USDRate)}
	pos, err := s.decideWithdrawalOf(ctx, a, investor, id, func(acc *account.Account, at time.Time) error {
		return acc.ApproveWithdrawal(id, p, a.UserID, at)
	}, s.paidMessage)
	return Decision{Position: pos}, err
}

// payable checks, before a payout is recorded or proposed, that withdrawal id may be approved
// by a.
func (s *Service) payable(ctx context.Context, a Actor, userID, id string) (account.Withdrawal, party, error) {
	w, ok, err := readRequest(ctx, s, userID, func(acc *account.Account) (account.Withdrawal, bool) { return acc.Withdrawal(id) })
	switch {
	case err != nil:
		return account.Withdrawal{}, party{}, err
	case !ok:
		return account.Withdrawal{}, party{}, ErrWithdrawalNotFound
	case w.Status != account.StatusPending:
		return account.Withdrawal{}, party{}, account.ErrWithdrawalDecided
	}
	investor, err := s.deciderFor(ctx, a, userID, proposal.KindWithdrawalApproval, id)
	if err != nil {
		return account.Withdrawal{}, party{}, err
	}
	return w, investor, nil
}

// paidMessage is the investor's e-mail about a paid withdrawal.
func (s *Service) paidMessage(name string, w account.Withdrawal) (string, any) {
	return mail.TemplateWithdrawalApproved, mail.WithdrawalApprovedData{Name: name, Amount: w.Amount.Dollars(),
		Fee: w.Fee.Dollars(), Receives: w.Receives().Dollars(), Asset: w.Asset, Network: payout.Network(w.Network).Name(),
		Address: w.Address, TxHash: w.TxHash, Link: s.withdrawalLink(w.ID)}
}

// RejectWithdrawal refuses a pending withdrawal: the hold goes back to the available balance, no
// fee is charged, and the investor is e-mailed the reason, in one transaction.
func (s *Service) RejectWithdrawal(ctx context.Context, a Actor, withdrawalID, reason string) (int64, error) {
	if err := s.awaitingSecond(ctx, proposal.KindWithdrawalApproval, strings.TrimSpace(withdrawalID)); err != nil {
		return 0, err
	}
	return s.decideWithdrawal(ctx, a, withdrawalID, func(acc *account.Account, at time.Time) error {
		return acc.RejectWithdrawal(withdrawalID, reason, a.UserID, at)
	}, func(name string, w account.Withdrawal) (string, any) {
		return mail.TemplateWithdrawalRejected, mail.WithdrawalRejectedData{Name: name, Amount: w.Amount.Dollars(),
			Reason: w.Reason, Link: s.withdrawalLink(w.ID)}
	})
}

func (s *Service) decideWithdrawal(ctx context.Context, a Actor, withdrawalID string,
	rule func(acc *account.Account, at time.Time) error,
	message func(name string, w account.Withdrawal) (string, any)) (int64, error) {
	userID, err := s.withdrawalOwner(ctx, withdrawalID)
	if err != nil {
		return 0, err
	}
	p, err := s.partyFor(ctx, a, userID)
	if err != nil {
		return 0, err
	}
	return s.decideWithdrawalOf(ctx, a, p, withdrawalID, rule, message)
}

// decideWithdrawalOf runs a staff decision on withdrawal withdrawalID of p's account
// (decideOn), with the investor's e-mail message gives.
func (s *Service) decideWithdrawalOf(ctx context.Context, a Actor, p party, withdrawalID string,
	rule func(acc *account.Account, at time.Time) error,
	message func(name string, w account.Withdrawal) (string, any)) (int64, error) {
	return s.decideOn(ctx, a, p, rule, func(wr *command.Writes, acc *account.Account, u *identity.User) error {
		w, _ := acc.Withdrawal(withdrawalID)
		claimPayoutHash(wr, w, s.clock.Now())
		template, data := message(u.Profile().Name, w)
		sql, args, err := s.withdrawalMail(ctx, u.Email(), u.Language(), w, template, data)
		if err != nil {
			return err
		}
		wr.Add(sql, args...)
		return nil
	})
}

// claimPayoutHash records an approved withdrawal's payout hash (canonical: the aggregate keeps
// it so) with the approval. A hash already recorded, by another payout or by a deposit, refuses
// the approval: one on-chain transfer settles one withdrawal. The claim's key does it, so a
// concurrent approval with the same hash waits for the first to commit and then fails on it.
func claimPayoutHash(wr *command.Writes, w account.Withdrawal, now time.Time) {
	if w.Status != account.StatusApproved || w.TxHash == "" {
		return
	}
	wr.Add(`INSERT INTO money_chain_tx_hashes (network, tx_hash, kind, ref, created_at) VALUES ($1, $2, 'payout', $3, $4)`,
		w.Network, w.TxHash, w.ID, now)
	wr.OnUnique("money_chain_tx_hashes_pkey", ErrPayoutTxHashUsed)
}

// withdrawalMail is the outbox row of one withdrawal message, for a command that queues it.
// Each template is sent once per withdrawal, so a retried command mails once.
func (s *Service) withdrawalMail(ctx context.Context, to, lang string, w account.Withdrawal, template string, data any) (string, []any, error) {
	subject, text, html, err := s.tmpl.RenderIn(lang, template, data)
	if err != nil {
		return "", nil, err
	}
	return mail.EnqueueStatement(ctx, "withdrawal/"+w.ID+"/"+template, mail.Message{To: to, Subject: subject, Text: text, HTML: html}, false)
}

func (s *Service) withdrawalLink(id string) string { return s.cfg.PublicURL + withdrawalPage + id }

// withdrawalOwner finds the account a withdrawal is on.
func (s *Service) withdrawalOwner(ctx context.Context, id string) (string, error) {
	id = strings.TrimSpace(id)
	if _, err := uuid.Parse(id); err != nil {
		return "", ErrWithdrawalNotFound
	}
	var userID string
	err := s.pool.QueryRow(ctx, `SELECT user_id FROM money_withdrawal_refs WHERE withdrawal_id = $1`, id).Scan(&userID)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrWithdrawalNotFound
	}
	if err != nil {
		return "", fmt.Errorf("money: withdrawal ref: %w", err)
	}
	return userID, nil
}

// Withdrawal returns one withdrawal to its owner or to staff; anyone else gets a 404, as for a
// withdrawal that does not exist.
func (s *Service) Withdrawal(ctx context.Context, a Actor, id string) (Withdrawal, error) {
	id = strings.TrimSpace(id)
	if _, err := uuid.Parse(id); err != nil {
		return Withdrawal{}, ErrWithdrawalNotFound
	}
	w, err := withdrawals.ByID(ctx, pgread.On(ctx, s.pool), id)
	if err != nil {
		return Withdrawal{}, err
	}
	if w.UserID != a.UserID && !a.Role.IsStaff() {
		return Withdrawal{}, ErrWithdrawalNotFound
	}
	return w, nil
}

// WithdrawalHistory is the caller's withdrawals, newest first.
func (s *Service) WithdrawalHistory(ctx context.Context, a Actor) ([]Withdrawal, error) {
	return withdrawals.ByUser(ctx, pgread.On(ctx, s.pool), a.UserID, 0)
}

func withdrawalFromAggregate(userID, name, email string, w account.Withdrawal) Withdrawal {
	out := Withdrawal{
		ID: w.ID, UserID: userID, Amount: w.Amount, Fee: w.Fee, FeeWaived: w.FeeWaived, Receives: w.Receives(),
		Address: w.Address, Network: w.Network, Asset: w.Asset, Status: w.Status, TxHash: w.TxHash,
		OnChainAmount: w.OnChainAmount, USDRate: w.USDRate, Reason: w.Reason, RequestedAt: w.RequestedAt,
		Name: name, Email: email,
	}
	if !w.DecidedAt.IsZero() {
		t := w.DecidedAt
		out.DecidedAt = &t
	}
	return out
}
