package referrals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/domain/clock"
	"clearvest/domain/identity"
	"clearvest/domain/money"
	"clearvest/domain/settings"
	"clearvest/eventstore"
	"clearvest/platform/correlation"
	"clearvest/platform/mail"
	"clearvest/projections"
)

// Name of the reactor: the key of its checkpoint (reactor_checkpoints) and lock.
const Name = "referral_bonus"

// DefaultBonus is the bonus when CLEARVEST_REFERRAL_BONUS is not set.
var DefaultBonus = money.MustParse("5.00")

// referralsPage is where the bonus e-mail points.
const referralsPage = "/referrals"

// Kicker wakes the mail sender after a commit; *mail.Sender is one.
type Kicker interface{ Kick() }

// Config is what the reactor needs from the configuration.
type Config struct {
	Bonus        money.Money // CLEARVEST_REFERRAL_BONUS
	MinDeposit   money.Money // CLEARVEST_REFERRAL_MIN_DEPOSIT
	PublicURL    string
	SupportEmail string
}

// Deps are the reactor's collaborators.
type Deps struct {
	Pool     *pgxpool.Pool
	Store    eventstore.Store // to read the referred user's money stream
	Commands *command.Runner  // on a store that appends with statements (command.Submit)
	Sender   Kicker
	Clock    clock.Clock
	Logger   *slog.Logger
	// Settings are the admins' settings (app/settings): the bonus and its minimum in force now;
	// nil: the Config's values.
	Settings LiveSettings
}

// LiveSettings reads the settings in force now (app/settings.Service).
type LiveSettings interface {
	Current(ctx context.Context) (settings.Values, error)
}

// Reactor credits referral bonuses. It implements projections.Reactor; run it with a
// projections.ReactorRunner, never inside a projection's Apply: its command commits on its own,
// and only the aggregate's refusal of a second bonus makes a replay harmless.
type Reactor struct {
	cfg      Config
	pool     *pgxpool.Pool
	store    eventstore.Store
	commands *command.Runner
	sender   Kicker
	clock    clock.Clock
	log      *slog.Logger
	tmpl     *mail.Templates
	settings LiveSettings
}

var _ projections.Reactor = (*Reactor)(nil)

// New wires the reactor.
func New(cfg Config, d Deps) (*Reactor, error) {
	if d.Pool == nil || d.Store == nil || d.Commands == nil {
		return nil, errors.New("referrals: New needs a pool, the event store and a command runner")
	}
	if _, err := money.Positive(cfg.Bonus); err != nil {
		return nil, fmt.Errorf("referrals: the bonus must be positive: %w", err)
	}
	if _, err := money.Positive(cfg.MinDeposit); err != nil {
		return nil, fmt.Errorf("referrals: the minimum deposit must be positive: %w", err)
	}
	if d.Clock == nil {
		d.Clock = clock.System()
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	tmpl, err := mail.NewTemplates(mail.Branding{PublicURL: cfg.PublicURL, SupportEmail: cfg.SupportEmail})
	if err != nil {
		return nil, err
	}
	return &Reactor{cfg: cfg, pool: d.Pool, store: d.Store, commands: d.Commands, sender: d.Sender, clock: d.Clock, log: d.Logger, tmpl: tmpl,
		settings: d.Settings}, nil
}

// Name implements projections.Reactor.
func (*Reactor) Name() string { return Name }

// Terms returns the bonus a qualifying referral earns and the least a referred user's confirmed
// deposit must credit to earn it, as in force now.
func (r *Reactor) Terms(ctx context.Context) (bonus, minDeposit money.Money, err error) {
	if r.settings == nil {
		return r.cfg.Bonus, r.cfg.MinDeposit, nil
	}
	v, err := r.settings.Current(ctx)
	if err != nil {
		return money.Money{}, money.Money{}, err
	}
	return v.Referral.Bonus, v.Referral.MinDeposit, nil
}

// React implements projections.Reactor: a confirmed deposit may earn the depositor's referrer
// their bonus.
func (r *Reactor) React(ctx context.Context, e eventstore.Envelope) error {
	// The bonus and its e-mail follow from the referred investor's deposit: same correlation.
	if e.Metadata.CorrelationID != "" {
		ctx = correlation.With(ctx, e.Metadata.CorrelationID)
	}
	if e.Type != account.TypeDepositConfirmed || e.StreamID.Category() != account.StreamCategory {
		return nil
	}
	f, referrer, err := r.facts(ctx, e)
	if err != nil {
		return err
	}
	switch out := Decide(f); out {
	case Credit:
		return r.credit(ctx, e, f, referrer)
	case ReferrerClosed, SelfReferral, ConfirmedByReferrer:
		r.log.Info("referral bonus not credited", "referred_user", f.ReferredUserID, "referrer", f.ReferrerID, "reason", string(out), "event_id", e.ID)
	}
	return nil
}

// facts gathers what Decide needs: what this deposit credited and who confirmed it, who
// referred the depositor, whether that account is still open, and how many of the depositor's
// deposits of at least the minimum were confirmed before this event.
func (r *Reactor) facts(ctx context.Context, e eventstore.Envelope) (Facts, *identity.User, error) {
	_, minimum, err := r.Terms(ctx)
	if err != nil {
		return Facts{}, nil, err
	}
	f := Facts{ReferredUserID: e.StreamID.ID(), Minimum: minimum}
	this, err := confirmation(e)
	if err != nil {
		return f, nil, err
	}
	f.Received, f.StaffID = this.Received, this.StaffID
	referred, err := command.Load(ctx, r.commands, eventstore.NewStreamID(identity.StreamCategory, f.ReferredUserID), identity.New)
	if err != nil {
		return f, nil, err
	}
	if f.ReferrerID = referred.ReferredBy(); f.ReferrerID == "" {
		return f, nil, nil
	}
	// Versions before this event's, in stream order: "first" is decided by the stream, not by
	// the order the reactor happens to see events in.
	var earlier []eventstore.Envelope
	if e.Version > 1 {
		if earlier, err = r.store.ReadStream(ctx, e.StreamID, 1, int(e.Version-1)); err != nil {
			return f, nil, err
		}
	}
	var confirmed []account.DepositConfirmed
	for _, x := range earlier {
		if x.Version < e.Version && x.Type == account.TypeDepositConfirmed {
			c, err := confirmation(x)
			if err != nil {
				return f, nil, err
			}
			confirmed = append(confirmed, c)
		}
	}
	f.EarlierQualifying = countQualifying(confirmed, minimum)
	referrer, err := command.Load(ctx, r.commands, eventstore.NewStreamID(identity.StreamCategory, f.ReferrerID), identity.New)
	if err != nil {
		return f, nil, err
	}
	f.ReferrerOpen = referrer.Registered() && referrer.Status() != identity.StatusClosed
	return f, referrer, nil
}

// confirmation reads a deposit confirmation's amount and confirming staff member. Money events
// are all at schema version 1 and carry no sealed fields, so their JSON is read as it is stored.
func confirmation(e eventstore.Envelope) (account.DepositConfirmed, error) {
	var c account.DepositConfirmed
	if e.SchemaVersion != 1 {
		return c, fmt.Errorf("referrals: %s schema version %d is not readable (event %s)", e.Type, e.SchemaVersion, e.ID)
	}
	if err := json.Unmarshal(e.Data, &c); err != nil {
		return c, fmt.Errorf("referrals: decode %s (event %s): %w", e.Type, e.ID, err)
	}
	return c, nil
}

// credit runs the one command: the bonus on the referrer's account and their e-mail, in one
// round trip (command.Submit). The command carries the deposit confirmation's id as its causation. A bonus
// already credited for this referred user (a replay after a crash, another process, a second
// reactor) is the aggregate's Conflict, and means the work is done.
func (r *Reactor) credit(ctx context.Context, e eventstore.Envelope, f Facts, referrer *identity.User) error {
	bonus, _, err := r.Terms(ctx)
	if err != nil {
		return err
	}
	stream := eventstore.NewStreamID(account.StreamCategory, f.ReferrerID)
	meta := eventstore.Metadata{CausationID: e.ID.String(), CorrelationID: e.Metadata.CorrelationID, ActorRole: "system"}
	if meta.CorrelationID == "" {
		meta.CorrelationID = e.ID.String()
	}
	_, err = command.Submit(ctx, r.commands, stream, account.NewFor(f.ReferrerID), meta,
		func(acc *account.Account, w *command.Writes) error {
			if err := acc.CreditReferralBonus(f.ReferredUserID, bonus, r.clock.Now()); err != nil {
				return err
			}
			subject, text, html, err := r.tmpl.RenderIn(referrer.Language(), mail.TemplateReferralBonus, mail.ReferralBonusData{
				Name: referrer.Profile().Name, Amount: bonus.Dollars(), Link: r.cfg.PublicURL + referralsPage})
			if err != nil {
				return err
			}
			// Once per referred user, as the bonus is.
			dedupe := "referral/" + f.ReferrerID + "/" + f.ReferredUserID
			sql, args, err := mail.EnqueueStatement(ctx, dedupe, mail.Message{To: referrer.Email(), Subject: subject, Text: text, HTML: html}, false)
			if err != nil {
				return err
			}
			w.Add(sql, args...)
			return nil
		})
	if errors.Is(err, account.ErrReferralCredited) {
		return nil
	}
	if err != nil {
		return err
	}
	r.log.Info("referral bonus credited", "referrer", f.ReferrerID, "referred_user", f.ReferredUserID, "amount", bonus.String(), "cause", e.ID)
	if r.sender != nil {
		r.sender.Kick()
	}
	return nil
}
