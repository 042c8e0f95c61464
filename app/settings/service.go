// Package settings is the application service of the operating settings admins change in the
// staff console (domain/settings, stream "settings-global"). Every serve process reads them
// through Current, which keeps the folded values in memory and, on each call, reads only the
// events appended to the stream since (one indexed query that usually returns nothing), so a
// change made through any process is in force in every process at its next request, without a
// restart. A section no event has changed yet has its first-start default, from the environment.
package settings

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/command"
	"clearvest/domain/clock"
	"clearvest/domain/identity"
	"clearvest/domain/money"
	"clearvest/domain/settings"
	"clearvest/eventstore"
)

// Stream is the one settings stream.
var Stream = eventstore.NewStreamID(settings.StreamCategory, settings.StreamID)

// Actor is the admin changing a setting.
type Actor struct {
	UserID string
	Role   identity.Role
	IP     string
}

func metaFor(a Actor) eventstore.Metadata {
	return eventstore.Metadata{ActorID: a.UserID, ActorRole: string(a.Role), ClientIP: a.IP}
}

// Change is one recorded change of a section: who, when, why, and the values before and after.
type Change struct {
	Section   settings.Section
	At        time.Time
	ActorID   string
	ActorName string
	Reason    string
	Old, New  settings.Values
	Position  int64
}

// Deps are the collaborators of the service.
type Deps struct {
	Pool     *pgxpool.Pool // for staff names; may be nil
	Store    eventstore.Store
	Codec    *eventstore.Registry
	Commands *command.Runner
	Clock    clock.Clock
	Logger   *slog.Logger
	// Ceiling is the ceiling on amounts (CLEARVEST_MAX_AMOUNT) the thresholds may not exceed.
	Ceiling money.Money
}

// Service reads and changes the settings. It is safe for concurrent use.
type Service struct {
	d        Deps
	defaults settings.Values

	mu      sync.Mutex
	version int64
	values  settings.Values
	changes []Change // oldest first
}

// New returns the service; defaults are the values in force before any change (the environment).
func New(defaults settings.Values, d Deps) (*Service, error) {
	if d.Store == nil || d.Codec == nil || d.Commands == nil {
		return nil, errors.New("settings: New needs a store, a codec and a command runner")
	}
	if d.Clock == nil {
		d.Clock = clock.System()
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	defaults.DepositAddresses = append([]settings.Address(nil), defaults.DepositAddresses...)
	return &Service{d: d, defaults: defaults, values: defaults}, nil
}

// Current returns the settings in force now: the defaults with every change recorded so far.
// The read of new events runs outside the lock, so concurrent requests never queue behind one
// another's round trip.
func (s *Service) Current(ctx context.Context) (settings.Values, error) {
	if err := s.refresh(ctx); err != nil {
		return settings.Values{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.copyLocked(), nil
}

func (s *Service) copyLocked() settings.Values {
	v := s.values
	v.DepositAddresses = append([]settings.Address(nil), v.DepositAddresses...)
	return v
}

// refresh folds the events appended since the last read.
func (s *Service) refresh(ctx context.Context) error {
	for {
		s.mu.Lock()
		from := s.version + 1
		s.mu.Unlock()
		envs, err := s.d.Store.ReadStream(ctx, Stream, from, 500)
		if err != nil {
			return err
		}
		if err := s.fold(envs); err != nil {
			return err
		}
		if len(envs) < 500 {
			return nil
		}
	}
}

// fold applies envs in order, skipping those another caller applied meanwhile.
func (s *Service) fold(envs []eventstore.Envelope) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, env := range envs {
		if env.Version != s.version+1 {
			continue
		}
		e, err := s.d.Codec.Decode(env)
		if err != nil {
			return err
		}
		meta, err := s.d.Codec.OpenMetadata(env)
		if err != nil {
			meta = env.Metadata
		}
		old := s.copyLocked()
		if section, ok := settings.Fold(&s.values, e); ok {
			s.changes = append(s.changes, Change{Section: section, At: recorded(e).At, ActorID: meta.ActorID, Reason: recorded(e).Reason,
				Old: old, New: s.copyLocked(), Position: env.Position})
		}
		s.version = env.Version
	}
	return nil
}

// recorded is the reason and time every settings event carries.
func recorded(e any) settings.Record {
	if r, ok := e.(interface{ Recorded() settings.Record }); ok {
		return r.Recorded()
	}
	return settings.Record{}
}

// History returns the recorded changes, newest first, with the staff members' names.
func (s *Service) History(ctx context.Context) ([]Change, error) {
	if err := s.refresh(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	out := make([]Change, len(s.changes))
	for i, c := range s.changes {
		out[len(out)-1-i] = c
	}
	s.mu.Unlock()
	if s.d.Pool == nil || len(out) == 0 {
		return out, nil
	}
	ids := make([]string, 0, len(out))
	for _, c := range out {
		ids = append(ids, c.ActorID)
	}
	rows, err := s.d.Pool.Query(ctx, `SELECT id::text, name FROM rm_users.users WHERE id::text = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names := map[string]string{}
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, err
		}
		names[id] = name
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		out[i].ActorName = names[out[i].ActorID]
	}
	return out, nil
}

// Update changes one section: next holds the new values of that section (the others are
// ignored). It returns the event's position, for read-your-writes.
func (s *Service) Update(ctx context.Context, a Actor, section settings.Section, next settings.Values, reason string) (int64, error) {
	if _, err := settings.ParseSection(string(section)); err != nil {
		return 0, err
	}
	res, err := command.Execute(ctx, s.d.Commands, Stream, settings.New, metaFor(a), func(agg *settings.Settings) error {
		// The values in force at the stream's version the command decides on.
		old, err := s.valuesAt(ctx, agg.Version())
		if err != nil {
			return err
		}
		now := s.d.Clock.Now()
		switch section {
		case settings.SectionWithdrawalFee:
			return agg.ChangeWithdrawalFee(old.WithdrawalFee, next.WithdrawalFee, reason, now)
		case settings.SectionReferral:
			return agg.ChangeReferral(old.Referral, next.Referral, reason, now)
		case settings.SectionApprovals:
			return agg.ChangeApprovals(old.Approvals, next.Approvals, s.d.Ceiling, reason, now)
		case settings.SectionDepositAddresses:
			return agg.ChangeDepositAddresses(old.DepositAddresses, next.DepositAddresses, reason, now)
		default:
			return agg.ChangeSupport(old.Support, next.Support, reason, now)
		}
	})
	if err != nil {
		return 0, err
	}
	s.d.Logger.Info("settings changed", "section", section, "actor", a.UserID, "position", res.Position)
	return res.Position, nil
}

// valuesAt returns the values after the stream's first version events.
func (s *Service) valuesAt(ctx context.Context, version int64) (settings.Values, error) {
	if err := s.refresh(ctx); err != nil {
		return settings.Values{}, err
	}
	s.mu.Lock()
	if version >= s.version {
		defer s.mu.Unlock()
		return s.copyLocked(), nil
	}
	s.mu.Unlock()
	v := s.defaults
	v.DepositAddresses = append([]settings.Address(nil), v.DepositAddresses...)
	if version <= 0 {
		return v, nil
	}
	envs, err := s.d.Store.ReadStream(ctx, Stream, 1, int(version))
	if err != nil {
		return settings.Values{}, err
	}
	for _, env := range envs {
		e, err := s.d.Codec.Decode(env)
		if err != nil {
			return settings.Values{}, err
		}
		settings.Fold(&v, e)
	}
	return v, nil
}

// Ceiling is the configured ceiling on amounts the thresholds stay below.
func (s *Service) Ceiling() money.Money { return s.d.Ceiling }

// Defaults returns the first-start defaults.
func (s *Service) Defaults() settings.Values { return s.defaults }
