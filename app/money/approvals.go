package money

import (
	"context"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"clearvest/app/approvals"
	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/domain/money"
	"clearvest/domain/proposal"
	"clearvest/platform/mail"
)

// Thresholds are when a money decision needs a second staff member, and the ceiling on every
// amount anyone enters (docs/security.md, "Separation of duties", "Ceilings on amounts").
type Thresholds struct {
	// DepositTolerance is the fraction by which a confirmed amount may differ from the declared
	// one (0.01: 1 %).
	DepositTolerance    decimal.Decimal
	DepositThreshold    money.Money
	WithdrawalThreshold money.Money
	// CorrectionThreshold: a balance correction above it, either way, needs a second person.
	CorrectionThreshold money.Money
	MaxAmount           money.Money
}

// Decision is what a staff decision did: applied at Position, or, when it needs a second staff
// member, opened the proposal ProposalID (and Position is the proposal's event).
type Decision struct {
	Position   int64
	ProposalID string
}

// Errors of the four-eyes rule on money.
var (
	ErrAwaitingApproval = domainerr.New(domainerr.Conflict, "A proposal for this is waiting for a second staff member: approve or reject it first.")
	ErrReasonForSecond  = fieldError(domainerr.Invalid, "notes", "A second staff member must approve this decision: please give the reason in the notes.")
	ErrPayoutReason     = fieldError(domainerr.Invalid, "reason", "A second staff member must approve this payout: please give a reason.")
	ErrTied             = domainerr.New(domainerr.RuleBroken, "You cannot decide on money of an account that referred you or that you referred.")
	ErrPayoutBeforeTwo  = fieldError(domainerr.Invalid, "txHash",
		"Withdrawals above the threshold are paid out by the second staff member, once they approve: leave the transaction hash for them.")
	ErrAboveCeiling = fieldError(domainerr.RuleBroken, "amount", "")
)

// checkCeiling refuses an amount above the platform's maximum.
func (s *Service) checkCeiling(m money.Money, field string) error {
	if max := s.cfg.Thresholds.MaxAmount; max.IsPositive() && max.LessThan(m) {
		e := ErrAboveCeiling.WithMessage("The amount cannot be more than " + max.Dollars() + ".")
		e.Field = field
		return e
	}
	return nil
}

// depositNeedsSecond says why confirming received on a deposit declared as declared needs a
// second staff member, or "" when it does not.
func (s *Service) depositNeedsSecond(ctx context.Context, declared, received money.Money) (string, error) {
	t, err := s.thresholds(ctx)
	if err != nil {
		return "", err
	}
	if t.DepositThreshold.IsPositive() && t.DepositThreshold.LessThan(received) {
		return "The amount received is above " + t.DepositThreshold.Dollars() + ".", nil
	}
	diff := received.Decimal().Sub(declared.Decimal()).Abs()
	if diff.GreaterThan(declared.Decimal().Mul(t.DepositTolerance)) {
		return "The amount received differs from the " + declared.Dollars() + " the investor declared by more than " +
			t.DepositTolerance.Shift(2).String() + " %.", nil
	}
	return "", nil
}

// withdrawalNeedsSecond says why paying out a withdrawal of amount needs a second staff
// member, or "".
func (s *Service) withdrawalNeedsSecond(ctx context.Context, amount money.Money) (string, error) {
	th, err := s.thresholds(ctx)
	if err != nil {
		return "", err
	}
	if t := th.WithdrawalThreshold; t.IsPositive() && t.LessThan(amount) {
		return "The withdrawal is above " + t.Dollars() + ".", nil
	}
	return "", nil
}

// notTied refuses a staff decision on an account the staff member referred or was referred by,
// and on their own (docs/product-rules.md, "four eyes").
func (s *Service) notTied(ctx context.Context, staffID string, owner *identity.User) error {
	if staffID == owner.ID() {
		return account.ErrOwnAccount
	}
	if owner.ReferredBy() == staffID {
		return ErrTied
	}
	staff, err := s.user(ctx, staffID)
	if err != nil {
		return err
	}
	if staff.ReferredBy() == owner.ID() {
		return ErrTied
	}
	return nil
}

// party is the investor a staff decision is on, loaded once for the request by the decision's
// checks (partyFor) and handed to the command (decideOn).
type party struct {
	user *identity.User
}

// partyFor loads the investor a staff decision is on and checks that the decision may be taken
// by a: the account is not closed, and neither is tied to the other (notTied).
func (s *Service) partyFor(ctx context.Context, a Actor, userID string) (party, error) {
	u, err := s.user(ctx, userID)
	if err != nil {
		return party{}, err
	}
	if u.Status() == identity.StatusClosed {
		return party{}, ErrAccountClosed
	}
	if err := s.notTied(ctx, a.UserID, u); err != nil {
		return party{}, err
	}
	return party{user: u}, nil
}

// deciderFor is partyFor for a decision on a subject that may become a proposal: refused too
// while a proposal on the subject waits for a second staff member (awaitingSecond).
func (s *Service) deciderFor(ctx context.Context, a Actor, userID string, kind proposal.Kind, subjectID string) (party, error) {
	p, err := s.partyFor(ctx, a, userID)
	if err != nil {
		return party{}, err
	}
	if err := s.awaitingSecond(ctx, kind, subjectID); err != nil {
		return party{}, err
	}
	return p, nil
}

// awaitingSecond refuses a single person's decision on a subject whose proposal waits.
func (s *Service) awaitingSecond(ctx context.Context, kind proposal.Kind, subjectID string) error {
	if s.approvals == nil {
		return nil
	}
	_, open, err := s.approvals.Pending(ctx, kind, subjectID)
	if err != nil {
		return err
	}
	if open {
		return ErrAwaitingApproval
	}
	return nil
}

// earlierOr answers a decision that the checks before its command refused, when the refusal may
// be the request's own doing: a repeat (an Idempotency-Key claimed by its command,
// command.WithClaim) of a decision that went through finds the request decided, or waiting for
// a second staff member. It gets its first run's answer instead, from what that run appended:
// the decision on the account, or the proposal opened on the subject. Otherwise the refusal
// stands. Only a refusal looks: a decision that passes its checks is no repeat of one that
// went through, and its command finds the key on the account anyway.
func (s *Service) earlierOr(ctx context.Context, refusal error, userID string, kind proposal.Kind, subjectID string) (Decision, error) {
	res, ok, err := command.Earlier(ctx, s.commands, accountStream(userID))
	if ok || err != nil {
		return Decision{Position: res.Position}, err
	}
	if s.approvals != nil {
		p, ok, err := s.approvals.Earlier(ctx, kind, subjectID)
		if ok || err != nil {
			return Decision{Position: p.Position, ProposalID: p.ProposalID}, err
		}
	}
	return Decision{}, refusal
}

func (s *Service) propose(ctx context.Context, a Actor, r approvals.Request) (Decision, error) {
	p, err := s.approvals.Propose(ctx, approvals.Actor{UserID: a.UserID, Role: a.Role, IP: a.IP}, r)
	if err != nil {
		return Decision{}, err
	}
	return Decision{Position: p.Position, ProposalID: p.ProposalID}, nil
}

// RegisterExecutors tells the approvals service how to carry out approved money proposals.
func (s *Service) RegisterExecutors(ap *approvals.Service) {
	s.approvals = ap
	ap.Handle(proposal.KindDepositConfirmation, s.confirmApproved)
	ap.Handle(proposal.KindWithdrawalApproval, s.payApproved)
	ap.Handle(proposal.KindBalanceCorrection, s.correctionApproved)
}

// confirmApproved confirms a deposit as proposed, countersigned by approver, in the approval's
// transaction.
func (s *Service) confirmApproved(ctx context.Context, approver approvals.Actor, p proposal.Proposal) (int64, error) {
	received, err := money.Parse(p.Params["received"])
	if err != nil {
		return 0, err
	}
	a := Actor{UserID: approver.UserID, Role: approver.Role, IP: approver.IP}
	c := account.Countersign{ProposalID: p.ProposalID, ApproverID: approver.UserID}
	return s.decideDeposit(ctx, a, p.SubjectID, func(acc *account.Account, depositID string, at time.Time) error {
		return acc.ConfirmDepositCountersigned(depositID, received, p.Params["notes"], p.ProposerID, c, at)
	}, s.confirmedMessage, paidToNoOther)
}

// payApproved records the payout of a withdrawal the second staff member sent once they
// approved it.
func (s *Service) payApproved(ctx context.Context, approver approvals.Actor, p proposal.Proposal) (int64, error) {
	a := Actor{UserID: approver.UserID, Role: approver.Role, IP: approver.IP}
	pay := account.Payout{TxHash: strings.TrimSpace(p.Params["txHash"]), OnChainAmount: strings.TrimSpace(p.Params["onChainAmount"]),
		USDRate: strings.TrimSpace(p.Params["usdRate"])}
	c := account.Countersign{ProposalID: p.ProposalID, ApproverID: approver.UserID}
	return s.decideWithdrawal(ctx, a, p.SubjectID, func(acc *account.Account, at time.Time) error {
		return acc.ApproveWithdrawalCountersigned(p.SubjectID, pay, p.ProposerID, c, at)
	}, s.paidMessage)
}

// confirmedMessage is the investor's e-mail about a confirmed deposit.
func (s *Service) confirmedMessage(name string, d account.Deposit) (string, any) {
	return mail.TemplateDepositConfirmed, mail.DepositConfirmedData{Name: name, TransactionID: d.TransactionID,
		Received: d.Received.Dollars(), Asset: d.Asset, Notes: d.Notes, Link: s.cfg.PublicURL + accountPage}
}

// Thresholds returns the thresholds and ceiling in force, which staff pages show.
func (s *Service) Thresholds(ctx context.Context) (Thresholds, error) { return s.thresholds(ctx) }
