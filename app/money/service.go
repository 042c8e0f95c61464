// Package money is the application service of users' money: the commands of the account
// aggregate (domain/account, stream "account-<userID>") run through the command runner, with
// the rows and e-mails that must commit with them. Deposits (docs/deposits.md), investments
// (docs/investments.md) and withdrawals (docs/withdrawals.md) are built, and so are staff corrections, fee waivers and fee
// exemptions (docs/staff.md).
//
// The service trusts its caller on who may call what (api/policy.go), except for a deposit's
// status, an investment and a withdrawal, which only their owner and staff may see: anyone else
// gets a 404.
package money

import (
	"context"
	"embed"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/approvals"
	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	"clearvest/domain/asset"
	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/domain/fees"
	"clearvest/domain/identity"
	"clearvest/domain/money"
	"clearvest/domain/payout"
	"clearvest/domain/settings"
	"clearvest/eventstore"
	"clearvest/platform/mail"
	"clearvest/platform/pgmigrate"
	"clearvest/projections/history"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations creates the service's own tables (money_deposit_refs, money_chain_tx_hashes and the
// money_tx_hashes it replaced, money_investment_refs, money_withdrawal_refs). They refer
// to no other set's tables.
var Migrations = pgmigrate.MustFromFS("money", migrationFS, "migrations")

// Address is where investors send one asset on one network.
type Address struct {
	Asset   asset.Asset
	Network payout.Network
	Address string
}

// Kicker wakes the mail sender after a commit; *mail.Sender is one.
type Kicker interface{ Kick() }

// Config is what the service needs from the configuration.
type Config struct {
	// PublicURL is where links in e-mails point.
	PublicURL    string
	SupportEmail string
	// Addresses are the configured deposit addresses (CLEARVEST_DEPOSIT_ADDRESSES).
	Addresses []Address
	// WithdrawalFee is the published withdrawal fee schedule (CLEARVEST_WITHDRAWAL_FEE).
	WithdrawalFee fees.Schedule
	// Thresholds are when a decision needs a second staff member, and the ceiling on amounts.
	// Decisions need a second person only once RegisterExecutors has run.
	Thresholds Thresholds
	// MaxOpenDeposits is how many deposits an investor may have waiting for staff
	// (CLEARVEST_MAX_OPEN_DEPOSITS); zero means DefaultMaxOpenDeposits, and a negative number
	// no quota (load tests, CLEARVEST_REQUEST_LIMITS=off).
	MaxOpenDeposits int
	// MinDeposit is the smallest deposit a request may state (CLEARVEST_MIN_DEPOSIT); zero means
	// DefaultMinDeposit.
	MinDeposit money.Money
}

// DefaultMinDeposit is the smallest deposit when the configuration sets none: $10.00.
var DefaultMinDeposit = money.MustParse("10.00")

// DefaultMaxOpenDeposits is the open deposit quota when the configuration sets none.
const DefaultMaxOpenDeposits = 5

// Deps are the collaborators of the service.
type Deps struct {
	Pool     *pgxpool.Pool
	Commands *command.Runner
	Sender   Kicker
	Clock    clock.Clock
	Logger   *slog.Logger
	// Plans is the plan catalogue investments take their terms from; nil refuses investments.
	Plans PlanCatalogue
	// Settings are the admins' settings (app/settings); nil: the Config's values stay in force.
	Settings LiveSettings
}

// LiveSettings reads the settings in force now (app/settings.Service): the fee schedule, the
// four-eyes thresholds and the deposit addresses, changed by admins without a restart.
type LiveSettings interface {
	Current(ctx context.Context) (settings.Values, error)
	// InForce is Current for a command run by command.Submit: no read, and a check that the
	// settings have not changed by the time the command commits.
	InForce(w *command.Writes) (settings.Values, error)
}

// Service runs the money commands. It is safe for concurrent use.
type Service struct {
	cfg      Config
	pool     *pgxpool.Pool
	commands *command.Runner
	sender   Kicker
	clock    clock.Clock
	log      *slog.Logger
	tmpl     *mail.Templates
	plans    PlanCatalogue
	settings LiveSettings
	feed     *history.Feed
	// approvals opens proposals for decisions that need a second staff member (RegisterExecutors).
	approvals *approvals.Service
	// settleFault, set only by tests, fails SettleDue for the accounts it names, to stand for an
	// account the maturity job cannot settle.
	settleFault func(userID string) error
	// claimRead, set only by tests, runs between a sighting's read of its transaction's claim
	// and its command, to stand for a declaration committed in between.
	claimRead func()
}

// New wires the service.
func New(cfg Config, d Deps) (*Service, error) {
	if d.Pool == nil || d.Commands == nil {
		return nil, errors.New("money: New needs a pool and a command runner")
	}
	if cfg.WithdrawalFee.Operation() != fees.Withdrawal {
		return nil, errors.New("money: New needs the withdrawal fee schedule")
	}
	if d.Clock == nil {
		d.Clock = clock.System()
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if cfg.MaxOpenDeposits == 0 {
		cfg.MaxOpenDeposits = DefaultMaxOpenDeposits
	}
	if !cfg.MinDeposit.IsPositive() {
		cfg.MinDeposit = DefaultMinDeposit
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	tmpl, err := mail.NewTemplates(mail.Branding{PublicURL: cfg.PublicURL, SupportEmail: cfg.SupportEmail})
	if err != nil {
		return nil, err
	}
	return &Service{cfg: cfg, pool: d.Pool, commands: d.Commands, sender: d.Sender, clock: d.Clock, log: d.Logger, tmpl: tmpl,
		plans: d.Plans, settings: d.Settings, feed: history.NewFeed(d.Pool, 0, d.Logger)}, nil
}

// Actor is who is calling: the signed-in user, their role and address.
type Actor struct {
	UserID string
	Role   identity.Role
	IP     string
}

// Errors of the service (the aggregate's are in domain/account).
var (
	ErrUserNotFound = domainerr.New(domainerr.NotFound, "User not found")
	// ErrAccountClosed refuses a staff decision on a closed account's request: its owner can no
	// longer be told, nor sign in to use the result. Closing an account that holds money is
	// refused (CheckClosable), so only accounts closed before that rule have such requests.
	ErrAccountClosed   = domainerr.Coded(domainerr.Conflict, "account_closed", "This account is closed: its requests can no longer be decided.")
	ErrDepositNotFound = account.ErrDepositNotFound
	ErrNotVerified     = domainerr.New(domainerr.Forbidden, "Please verify your email address before making a deposit.")
	ErrNoAddress       = domainerr.New(domainerr.RuleBroken, "Deposits of this asset on this network are not available. Please choose another.")
	// ErrBelowMinDeposit carries the minimum in its message ('The minimum deposit is $10.00').
	ErrBelowMinDeposit = fieldError(domainerr.RuleBroken, "amount", "The amount is below the minimum deposit")
	ErrTxHashUsed      = fieldError(domainerr.Conflict, "txHash", "This transaction hash has already been used.")
	// ErrPayoutTxHashUsed: the payout hash is already on the books, as another payout or as a
	// deposit; a transfer settles one withdrawal.
	ErrPayoutTxHashUsed = fieldError(domainerr.Conflict, "txHash", "This transaction hash is already recorded for another payout or deposit.")
	// ErrPaidAnotherInvestor refuses a staff confirmation of a deposit declared for a
	// transaction the chain watcher saw pay another investor's own address: it is theirs, and
	// credited to them by the watcher.
	ErrPaidAnotherInvestor = domainerr.New(domainerr.Conflict,
		"This transaction paid another investor's personal address and is credited to them automatically.")
	ErrOnChainRequired = fieldError(domainerr.Invalid, "onChainAmount", "Please enter the amount of the asset you sent.")
	ErrOnChainMismatch = fieldError(domainerr.Invalid, "onChainAmount", "The amount of the asset does not match the USD amount. Please check both.")
)

func fieldError(kind domainerr.Kind, field, message string) *domainerr.Error {
	e := domainerr.New(kind, message)
	e.Field = field
	return e
}

func metaFor(a Actor) eventstore.Metadata {
	return eventstore.Metadata{ActorID: a.UserID, ActorRole: string(a.Role), ClientIP: a.IP}
}

func accountStream(userID string) eventstore.StreamID {
	return eventstore.NewStreamID(account.StreamCategory, userID)
}

// readAccount lends the user's account as it stands now to f, which only reads it
// (command.Read): a long account costs no restore or replay.
func (s *Service) readAccount(ctx context.Context, userID string, f func(*account.Account) error) error {
	return command.Read(ctx, s.commands, accountStream(userID), account.NewFor(userID), f)
}

// readRequest reads one request of the user's account (a deposit, a withdrawal) as it stands
// now, with readAccount.
func readRequest[R any](ctx context.Context, s *Service, userID string, get func(*account.Account) (R, bool)) (r R, ok bool, err error) {
	err = s.readAccount(ctx, userID, func(acc *account.Account) error {
		r, ok = get(acc)
		return nil
	})
	return r, ok, err
}

func userStream(userID string) eventstore.StreamID {
	return eventstore.NewStreamID(identity.StreamCategory, userID)
}

// user loads a user's identity as the stream is now (e-mail, verification, name).
func (s *Service) user(ctx context.Context, userID string) (*identity.User, error) {
	u, err := command.Load(ctx, s.commands, userStream(userID), identity.New)
	if err != nil {
		return nil, err
	}
	if !u.Registered() {
		return nil, ErrUserNotFound
	}
	return u, nil
}

// verifiedUser is the user a command of theirs rests on (command.Consult): registered, with a
// verified e-mail address, or the command fails with ErrUserNotFound or notVerified.
func (s *Service) verifiedUser(w *command.Writes, userID string, notVerified error) (*identity.User, error) {
	u, err := command.Consult(w, userStream(userID), identity.New)
	if err != nil {
		return nil, err
	}
	if !u.Registered() {
		return nil, ErrUserNotFound
	}
	if !u.EmailVerified() {
		return nil, notVerified
	}
	return u, nil
}

// requested is what an earlier request with the same Idempotency-Key made, rebuilt from that
// request's events (command.Result.Raised): the item the request event E names, as it was then,
// so that a repeat gets the request's own answer even after staff have decided on it. The
// request's answer shows nothing of the investor but their id.
func requested[E aggregate.Event, T any](userID string, raised []aggregate.Event, ref func(E) string, find func(*account.Account, string) (T, bool)) (T, error) {
	acc := account.New(userID)
	aggregate.Load(acc, 0, raised...)
	for _, e := range raised {
		if r, ok := e.(E); ok {
			if item, ok := find(acc, ref(r)); ok {
				return item, nil
			}
		}
	}
	var zero T
	return zero, errors.New("money: the repeated request's events hold nothing it made")
}

// Addresses lists the deposit addresses in force, in the order they were configured.
func (s *Service) Addresses(ctx context.Context) ([]Address, error) {
	if s.settings == nil {
		return append([]Address(nil), s.cfg.Addresses...), nil
	}
	v, err := s.settings.Current(ctx)
	if err != nil {
		return nil, err
	}
	return addressesOf(v), nil
}

func addressesOf(v settings.Values) []Address {
	out := make([]Address, 0, len(v.DepositAddresses))
	for _, d := range v.DepositAddresses {
		out = append(out, Address{Asset: d.Asset, Network: d.Network, Address: d.Address})
	}
	return out
}

// depositAddress is the address a deposit request decided by a command is told to pay: the one
// for the asset and network among the settings in force when the command commits.
func (s *Service) depositAddress(w *command.Writes, a asset.Asset, n payout.Network) (string, error) {
	list := s.cfg.Addresses
	if s.settings != nil {
		v, err := s.settings.InForce(w)
		if err != nil {
			return "", err
		}
		list = addressesOf(v)
	}
	for _, d := range list {
		if d.Asset == a && d.Network == n {
			return d.Address, nil
		}
	}
	return "", ErrNoAddress
}

// UseSettings has the service read the fee, the thresholds and the addresses from l, as Deps.Settings
// does; call it before the service serves anything.
func (s *Service) UseSettings(l LiveSettings) { s.settings = l }

// feeSchedule is the withdrawal fee schedule in force.
func (s *Service) feeSchedule(ctx context.Context) (fees.Schedule, error) {
	if s.settings == nil {
		return s.cfg.WithdrawalFee, nil
	}
	v, err := s.settings.Current(ctx)
	if err != nil {
		return fees.Schedule{}, err
	}
	return v.WithdrawalFee.Schedule()
}

// feeScheduleIn is the withdrawal fee schedule in force when a command run by command.Submit
// commits (LiveSettings.InForce).
func (s *Service) feeScheduleIn(w *command.Writes) (fees.Schedule, error) {
	if s.settings == nil {
		return s.cfg.WithdrawalFee, nil
	}
	v, err := s.settings.InForce(w)
	if err != nil {
		return fees.Schedule{}, err
	}
	return v.WithdrawalFee.Schedule()
}

// thresholds are the four-eyes thresholds in force, with the configured ceiling.
func (s *Service) thresholds(ctx context.Context) (Thresholds, error) {
	t := s.cfg.Thresholds
	if s.settings == nil {
		return t, nil
	}
	v, err := s.settings.Current(ctx)
	if err != nil {
		return Thresholds{}, err
	}
	t.DepositTolerance = v.Approvals.DepositTolerancePercent.Shift(-2)
	t.DepositThreshold, t.WithdrawalThreshold = v.Approvals.DepositThreshold, v.Approvals.WithdrawalThreshold
	return t, nil
}

// decideOn runs a staff decision on the account of p, the investor the decision's checks
// loaded (partyFor), with command.Submit: rule decides on the account, and writes queues what
// commits with its events (the investor's e-mail, rendered from the account after the decision,
// and the rows the decision justifies), so that the decision, its rows and its message go to the
// database in one round trip and commit together.
// An approval carried in ctx (approvals.Service.Approve) commits with them. Nothing here reads
// inside the command's transaction: what the decision rests on outside the account is read
// before it, or checked by a statement that fails it (paidToNoOther).
func (s *Service) decideOn(ctx context.Context, a Actor, p party,
	rule func(acc *account.Account, now time.Time) error,
	writes func(w *command.Writes, acc *account.Account, u *identity.User) error) (int64, error) {
	res, err := command.Submit(ctx, s.commands, accountStream(p.user.ID()), account.NewFor(p.user.ID()), metaFor(a),
		func(acc *account.Account, w *command.Writes) error {
			if err := rule(acc, s.clock.Now()); err != nil {
				return err
			}
			return writes(w, acc, p.user)
		})
	if err != nil {
		return 0, err
	}
	s.kick()
	return res.Position, nil
}

// decideFor is decideOn for the investor userID, loaded and checked first (partyFor).
func (s *Service) decideFor(ctx context.Context, a Actor, userID string,
	rule func(acc *account.Account, now time.Time) error,
	writes func(w *command.Writes, acc *account.Account, u *identity.User) error) (int64, error) {
	p, err := s.partyFor(ctx, a, userID)
	if err != nil {
		return 0, err
	}
	return s.decideOn(ctx, a, p, rule, writes)
}

// addMail queues an e-mail, rendered in lang, for a command's writes. dedupe names its cause, so
// that a retried command mails once.
func (s *Service) addMail(ctx context.Context, w *command.Writes, dedupe, to, lang, template string, data any) error {
	subject, text, html, err := s.tmpl.RenderIn(lang, template, data)
	if err != nil {
		return err
	}
	sql, args, err := mail.EnqueueStatement(ctx, dedupe, mail.Message{To: to, Subject: subject, Text: text, HTML: html}, false)
	if err != nil {
		return err
	}
	w.Add(sql, args...)
	return nil
}

func (s *Service) kick() {
	if s.sender != nil {
		s.sender.Kick()
	}
}
