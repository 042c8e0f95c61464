package money

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/domain/kyc"
	"clearvest/domain/money"
	"clearvest/domain/plan"
	"clearvest/platform/correlation"
	"clearvest/platform/mail"
	"clearvest/platform/pgread"
	"clearvest/projections/investments"
	"clearvest/projections/keyset"
)

// PlanCatalogue finds a plan by its name as its stream is now; *plans.Service is one.
type PlanCatalogue interface {
	ByName(ctx context.Context, name string) (*plan.Plan, error)
}

// Investment is one investment as its owner and staff see it: the investments read model's row,
// so the shape is defined once.
type Investment = investments.Investment

// InvestInput is what an investor asks for: an amount in a plan, named as the plan page shows it.
type InvestInput struct {
	Amount   string // USD, a decimal string
	PlanName string
	// PlanVersion is the plan version whose terms the investor saw (the quote's); a start for
	// another version than the current one is refused (409). The quote ignores it.
	PlanVersion int
}

// InvestmentQuote is what an investment of Amount in a plan would be, worked out with the plan's current
// terms, for the confirmation step: the investor sees exactly these figures before money moves.
type InvestmentQuote struct {
	PlanName string
	// PlanVersion is the version of the plan the terms are from; a start must send it back.
	PlanVersion int
	Terms       plan.Terms
	Amount      money.Money
	Return      money.Money
	Payout      money.Money // Amount + Return
	// MaturesAt is when the investment would end if it were approved now.
	MaturesAt time.Time
	Available money.Money
}

// InvestmentCreated is a new Pending investment and the position of its event.
type InvestmentCreated struct {
	Investment Investment
	Position   int64
}

// Errors of investments (the aggregate's are in domain/account, the gate's in domain/kyc).
var (
	ErrPlanRequired       = fieldError(domainerr.Invalid, "planName", "Please select an investment plan.")
	ErrPlanUnavailable    = fieldError(domainerr.RuleBroken, "planName", "This plan is not available. Please select another plan.")
	ErrInvestmentNotFound = account.ErrInvestmentNotFound
	ErrPlansUnavailable   = domainerr.New(domainerr.RuleBroken, "Investments are not available yet.")
)

// investmentPage is where an e-mail about an investment points.
func (s *Service) investmentPage(id string) string { return s.cfg.PublicURL + "/investment/" + id }

// plan resolves a plan name to the plan's current terms, refusing a plan that is not offered.
func (s *Service) plan(ctx context.Context, name string) (*plan.Plan, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, ErrPlanRequired
	}
	if s.plans == nil {
		return nil, ErrPlansUnavailable
	}
	p, err := s.plans.ByName(ctx, name)
	if errors.Is(err, plan.ErrNotFound) {
		return nil, ErrPlanUnavailable
	}
	if err != nil {
		return nil, err
	}
	if !p.Active() {
		return nil, ErrPlanUnavailable
	}
	return p, nil
}

// mayInvest is the gate every investment start passes: a verified e-mail address and an
// approved identity check (kyc.MayInvest, the rule GET /api/invest/eligibility answers with).
func (s *Service) mayInvest(ctx context.Context, userID string) error {
	c, err := command.Load(ctx, s.commands, userStream(userID), kyc.New)
	if err != nil {
		return err
	}
	return kyc.MayInvest(c.EmailVerified(), c.Status())
}

// captured are a plan's current terms as the investment keeps them.
func captured(p *plan.Plan) account.Terms {
	t := p.Terms()
	return account.Terms{PlanID: p.ID(), PlanVersion: p.CurrentVersion(), PlanName: p.Name(), TermDays: t.TermDays,
		TermRate: t.TermRate.String(), Min: t.Min, Max: t.Max}
}

func parseAmount(s string) (money.Money, error) {
	amount, err := money.Parse(strings.TrimSpace(s))
	if err != nil {
		return money.Money{}, err
	}
	return money.Positive(amount)
}

// QuoteInvestment works out an investment of in.Amount in the named plan with its current terms, and
// checks what StartInvestment would check (gate, limits, balance), so the confirmation step
// never shows figures the request would then refuse.
func (s *Service) QuoteInvestment(ctx context.Context, a Actor, in InvestInput) (InvestmentQuote, error) {
	p, err := s.plan(ctx, in.PlanName)
	if err != nil {
		return InvestmentQuote{}, err
	}
	if err := s.mayInvest(ctx, a.UserID); err != nil {
		return InvestmentQuote{}, err
	}
	amount, err := parseAmount(in.Amount)
	if err != nil {
		return InvestmentQuote{}, err
	}
	var available money.Money
	if err := s.readAccount(ctx, a.UserID, func(acc *account.Account) error {
		available = acc.Available()
		// The aggregate's own checks, asked without deciding.
		_, err := acc.Check(account.InvestmentRequested{InvestmentID: uuid.NewString(), Terms: captured(p), Amount: amount, At: s.clock.Now()})
		return err
	}); err != nil {
		return InvestmentQuote{}, err
	}
	t := p.Terms()
	ex := t.ExampleFor(amount)
	return InvestmentQuote{PlanName: p.Name(), PlanVersion: p.CurrentVersion(), Terms: t, Amount: amount, Return: ex.Return, Payout: ex.Payout,
		MaturesAt: t.MaturesAt(s.clock.Now()), Available: available}, nil
}

// StartInvestment holds in.Amount from the caller's available balance for an investment in the
// named plan, under the plan's current terms, captured into the event; staff decide next. The
// investor is e-mailed with it. The terms are pinned: in.PlanVersion must be the plan's current
// version, or the start is a *PlanChangedError with the current figures and nothing is held.
//
// It runs with command.Submit, as deposit and withdrawal requests do: the hold, its reference
// row, the e-mail and the check of the investor's user stream (verified e-mail, approved
// identity check) commit in one round trip.
func (s *Service) StartInvestment(ctx context.Context, a Actor, in InvestInput) (InvestmentCreated, error) {
	p, err := s.plan(ctx, in.PlanName)
	if err != nil {
		return InvestmentCreated{}, err
	}
	amount, err := parseAmount(in.Amount)
	if err != nil {
		return InvestmentCreated{}, err
	}
	if in.PlanVersion <= 0 {
		return InvestmentCreated{}, ErrPlanVersionRequired
	}
	if in.PlanVersion != p.CurrentVersion() {
		// The terms captured below would not be the ones the investor agreed to: show them the
		// current ones instead (or why the current ones refuse the amount).
		q, err := s.QuoteInvestment(ctx, a, in)
		if err != nil {
			return InvestmentCreated{}, err
		}
		return InvestmentCreated{}, &PlanChangedError{Quote: q}
	}
	id := uuid.Must(uuid.NewV7()).String()
	terms := captured(p)
	var inv account.Investment
	res, err := command.Submit(ctx, s.commands, accountStream(a.UserID), account.NewFor(a.UserID), metaFor(a),
		func(acc *account.Account, w *command.Writes) error {
			c, err := command.Consult(w, userStream(a.UserID), kyc.New)
			if err != nil {
				return err
			}
			if err := kyc.MayInvest(c.EmailVerified(), c.Status()); err != nil {
				return err
			}
			u, err := command.Consult(w, userStream(a.UserID), identity.New)
			if err != nil {
				return err
			}
			if !u.Registered() {
				return ErrUserNotFound
			}
			now := s.clock.Now()
			if err := acc.RequestInvestment(id, terms, amount, now); err != nil {
				return err
			}
			w.Add(claimInvestmentSQL, id, a.UserID, now)
			inv, _ = acc.Investment(id)
			sql, args, err := s.investmentMail(ctx, u.Profile().Name, u.Email(), u.Language(), inv, mail.TemplateInvestmentRequested)
			if err != nil {
				return err
			}
			w.Add(sql, args...)
			return nil
		})
	if err != nil {
		return InvestmentCreated{}, err
	}
	if res.IdempotentReplay {
		if inv, err = requested(a.UserID, res.Raised, func(e account.InvestmentRequested) string { return e.InvestmentID }, (*account.Account).Investment); err != nil {
			return InvestmentCreated{}, err
		}
	} else {
		s.kick()
	}
	return InvestmentCreated{Investment: fromInvestment(a.UserID, inv), Position: res.Position}, nil
}

// claimInvestmentSQL records which account an investment is in.
const claimInvestmentSQL = `INSERT INTO money_investment_refs (investment_id, user_id, created_at) VALUES ($1, $2, $3)
	ON CONFLICT (investment_id) DO NOTHING`

// investmentMail is the outbox row of one investment message, in the investor's language, for a
// command that queues it. One message of each kind per investment, so the dedupe key names the
// cause and a retried command mails once.
func (s *Service) investmentMail(ctx context.Context, name, to, lang string, inv account.Investment, template string) (string, []any, error) {
	t := investments.PlanTerms(inv.Terms)
	data := mail.InvestmentData{
		Name: name, Plan: inv.Terms.PlanName, Amount: inv.Amount.Dollars(), TermDays: inv.Terms.TermDays,
		TermRate: percent(t.RatePercent()), APR: percent(t.APRPercent().StringFixed(plan.APRDecimals)),
		Reason: inv.Reason, Link: s.investmentPage(inv.ID), End: inv.End,
	}
	if inv.Status != account.StatusPending && inv.Status != account.StatusRejected {
		data.Return, data.Payout = inv.Return.Dollars(), inv.Payout().Dollars()
	}
	if template == mail.TemplateInvestmentMatured {
		data.Reinvested = reinvested(inv)
		data.Reason = inv.ReinvestRefused // why a reinvestment asked for was paid out instead
	}
	subject, text, html, err := s.tmpl.RenderIn(lang, template, data)
	if err != nil {
		return "", nil, err
	}
	dedupe := "investment/" + inv.ID + "/" + template
	return mail.EnqueueStatement(ctx, dedupe, mail.Message{To: to, Subject: subject, Text: text, HTML: html}, false)
}

func percent(s string) string { return s + "%" }

// ApproveInvestment activates a pending investment: the term starts now (the app clock) and the
// return is fixed from the captured terms. A second decision is a 409.
func (s *Service) ApproveInvestment(ctx context.Context, a Actor, investmentID string) (int64, error) {
	return s.decideInvestment(ctx, a, investmentID, mail.TemplateInvestmentApproved, func(acc *account.Account, id string, now time.Time) error {
		return acc.ActivateInvestment(id, a.UserID, now)
	})
}

// RejectInvestment refuses a pending investment and releases its hold; the reason is required
// and e-mailed to the investor. A second decision is a 409.
func (s *Service) RejectInvestment(ctx context.Context, a Actor, investmentID, reason string) (int64, error) {
	return s.decideInvestment(ctx, a, investmentID, mail.TemplateInvestmentRejected, func(acc *account.Account, id string, now time.Time) error {
		return acc.RejectInvestment(id, reason, a.UserID, now)
	})
}

// owner finds the account an investment lives in.
func (s *Service) owner(ctx context.Context, investmentID string) (userID, id string, err error) {
	u, err := uuid.Parse(strings.TrimSpace(investmentID))
	if err != nil {
		return "", "", ErrInvestmentNotFound
	}
	id = u.String()
	err = s.pool.QueryRow(ctx, `SELECT user_id FROM money_investment_refs WHERE investment_id = $1`, id).Scan(&userID)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", ErrInvestmentNotFound
	}
	if err != nil {
		return "", "", fmt.Errorf("money: investment ref: %w", err)
	}
	return userID, id, nil
}

func (s *Service) decideInvestment(ctx context.Context, a Actor, investmentID, template string,
	rule func(acc *account.Account, id string, now time.Time) error) (int64, error) {
	userID, id, err := s.owner(ctx, investmentID)
	if err != nil {
		return 0, err
	}
	return s.decideFor(ctx, a, userID, func(acc *account.Account, now time.Time) error { return rule(acc, id, now) },
		func(w *command.Writes, acc *account.Account, u *identity.User) error {
			inv, _ := acc.Investment(id)
			sql, args, err := s.investmentMail(ctx, u.Profile().Name, u.Email(), u.Language(), inv, template)
			if err != nil {
				return err
			}
			w.Add(sql, args...)
			return nil
		})
}

// Settled is what one maturity run paid out on one account.
type Settled struct {
	Investments []Investment // as they are after the run
	Position    int64
}

// SettleDue matures every investment of the user whose end is at or before the app clock's now,
// and e-mails the investor about each, in one transaction. With nothing due it appends nothing,
// so running it twice, or from several processes at once, settles each investment once: a
// second run either finds nothing due or loses the append race and, reloaded, finds nothing.
//
// It runs with command.Submit: the maturities, the references of reinvestments and the e-mails
// go to the database in one round trip. The investor is read before; the facts a reinvestment
// is checked against are read while deciding, and only when something is due. An e-mail never stands in
// the money's way: one that cannot be rendered or built is logged and left out before anything
// is sent, and the payout commits without it (a queued one is sent, and retried, by the
// outbox's sender after the commit); a built message breaks no constraint of the outbox. A
// closed account's investments mature too, without e-mail.
func (s *Service) SettleDue(ctx context.Context, userID string) (Settled, error) {
	// One account's payouts are one item of the job: their events and e-mails share an id.
	ctx = correlation.Ensure(ctx)
	if s.settleFault != nil {
		if err := s.settleFault(userID); err != nil {
			return Settled{}, err
		}
	}
	var name, email, lang string
	u, err := s.user(ctx, userID)
	switch {
	case errors.Is(err, ErrUserNotFound):
		u = nil
	case err != nil:
		return Settled{}, err
	case u.Status() == identity.StatusClosed:
	default:
		name, email, lang = u.Profile().Name, u.Email(), u.Language()
	}
	var out Settled
	res, err := command.Submit(ctx, s.commands, accountStream(userID), account.NewFor(userID), maturityMeta,
		func(acc *account.Account, w *command.Writes) error {
			now := s.clock.Now()
			out.Investments = nil
			if len(acc.Due(now)) == 0 {
				return nil
			}
			rule, err := s.reinvestRule(ctx, userID, acc, u)
			if err != nil {
				return err
			}
			if err := acc.MatureDueChecked(now, rule); err != nil {
				return err
			}
			claimReinvestments(w, acc, userID, now)
			// A reinvestment already due matures in the same run, so the matured list comes from
			// the events, not from what was due at the start.
			for _, id := range matured(acc) {
				inv, _ := acc.Investment(id)
				out.Investments = append(out.Investments, fromInvestment(userID, inv))
				if email == "" {
					continue
				}
				s.mailBesideMoney(ctx, w, name, email, lang, inv, mail.TemplateInvestmentMatured)
			}
			return nil
		})
	if err != nil {
		return Settled{}, err
	}
	if len(out.Investments) > 0 {
		s.kick()
	}
	out.Position = res.Position
	return out, nil
}

// reinvestRule gathers what a reinvestment of userID's is checked against
// (account.ReinvestFacts): the account's status (u is nil for a user that does not exist), the
// identity check, and the current terms of every plan an investment of acc with the reinvest
// instruction is in. A plan it cannot find counts as no longer offered: the payout then goes to
// the available balance, never lost. SettleDue calls it while deciding, on the very state it
// decides on, so the account is loaded once; its reads take a pool connection each and hold
// none while deciding, as the command's transaction only begins once the decision is made.
func (s *Service) reinvestRule(ctx context.Context, userID string, acc *account.Account, u *identity.User) (account.ReinvestRule, error) {
	base := account.ReinvestFacts{AccountActive: u != nil && u.Status() == identity.StatusActive}
	facts := map[string]account.ReinvestFacts{}
	for _, inv := range acc.Investments() {
		if inv.Status != account.StatusActive || inv.Instruction != account.InstructionReinvest {
			continue
		}
		if _, ok := facts[inv.Terms.PlanName]; ok {
			continue
		}
		if len(facts) == 0 && base.AccountActive {
			c, err := command.Load(ctx, s.commands, userStream(userID), kyc.New)
			if err != nil {
				return nil, err
			}
			base.IdentityApproved = kyc.MayInvest(c.EmailVerified(), c.Status()) == nil
		}
		f := base
		if s.plans != nil {
			p, err := s.plans.ByName(ctx, inv.Terms.PlanName)
			switch {
			case errors.Is(err, plan.ErrNotFound):
			case err != nil:
				return nil, err
			default:
				t := p.Terms()
				f.PlanActive, f.Min, f.Max = p.Active(), t.Min, t.Max
			}
		}
		facts[inv.Terms.PlanName] = f
	}
	return func(inv account.Investment, amount money.Money) string {
		f, ok := facts[inv.Terms.PlanName]
		if !ok {
			f = base // a plan not looked up counts as no longer offered
		}
		return f.Refusal(inv, amount)
	}, nil
}

// mailBesideMoney queues one investment message with the command's writes, unless it cannot be
// rendered or built: that is logged, and the money moves without it.
func (s *Service) mailBesideMoney(ctx context.Context, w *command.Writes, name, to, lang string, inv account.Investment, template string) {
	sql, args, err := s.investmentMail(ctx, name, to, lang, inv, template)
	if err != nil {
		s.log.WarnContext(ctx, "money: an investment e-mail could not be built; the money moves without it",
			"investment", inv.ID, "template", template, "err", err)
		return
	}
	w.Add(sql, args...)
}

// maturityMeta marks the events the maturity job appends: nobody asked for them, the end date
// did.
var maturityMeta = metaFor(Actor{Role: "system"})

func fromInvestment(userID string, inv account.Investment) Investment {
	out := Investment{
		ID: inv.ID, UserID: userID, Terms: inv.Terms, Amount: inv.Amount, Status: inv.Status, Return: inv.Return,
		Instruction: string(account.InstructionPayOut), ClosedEarly: inv.ClosedEarly, ReinvestedAs: inv.ReinvestedAs,
		ReinvestedFrom: inv.ReinvestedFrom, Reason: inv.Reason, StaffID: inv.StaffID, RequestedAt: inv.RequestedAt,
	}
	if inv.Instruction != "" {
		out.Instruction = string(inv.Instruction)
	}
	at := func(t time.Time) *time.Time {
		if t.IsZero() {
			return nil
		}
		return &t
	}
	out.DecidedAt, out.Start, out.End, out.ClosedAt = at(inv.DecidedAt), at(inv.Start), at(inv.End), at(inv.MaturedAt)
	return out
}

// Investment returns one investment to its owner or to staff; anyone else gets a 404, as for an
// investment that does not exist. It reads the investments read model.
func (s *Service) Investment(ctx context.Context, a Actor, investmentID string) (Investment, error) {
	u, err := uuid.Parse(strings.TrimSpace(investmentID))
	if err != nil {
		return Investment{}, ErrInvestmentNotFound
	}
	inv, err := investments.ByID(ctx, pgread.On(ctx, s.pool), u.String())
	if err != nil {
		return Investment{}, err
	}
	if inv.UserID != a.UserID && !a.Role.IsStaff() {
		return Investment{}, ErrInvestmentNotFound
	}
	return inv, nil
}

// Investments lists the caller's investments, newest first.
func (s *Service) Investments(ctx context.Context, a Actor) ([]Investment, error) {
	return investments.ByUser(ctx, pgread.On(ctx, s.pool), a.UserID)
}

// PendingInvestmentPage reads a page of the investment queue, oldest first, as
// PendingDepositPage does.
func (s *Service) PendingInvestmentPage(ctx context.Context, cursor string, limit *int) (keyset.Page[Investment], error) {
	return keyset.Read(cursor, limit, func(after *keyset.Cursor, n int) ([]Investment, int, bool, error) {
		return investments.PendingPage(ctx, pgread.On(ctx, s.pool), after, n)
	}, func(i Investment) keyset.Cursor { return keyset.Cursor{At: i.RequestedAt, ID: i.ID} })
}

// Now is the app clock's reading, which decides maturity.
func (s *Service) Now() time.Time { return s.clock.Now() }
