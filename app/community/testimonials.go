package community

import (
	"clearvest/platform/pgread"
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/domain/geo"
	"clearvest/domain/identity"
	"clearvest/domain/testimonial"
	"clearvest/eventstore"
	"clearvest/projections/activity"
	"clearvest/projections/testimonials"
	"clearvest/projections/users"
)

// listLimit bounds the public list and the staff queue: the home page shows a few, and staff
// work from the oldest.
const listLimit = 100

// Stream is the stream of a testimonial.
func Stream(id string) eventstore.StreamID {
	return eventstore.NewStreamID(testimonial.StreamCategory, id)
}

// Submitted is what Submit did.
type Submitted struct {
	ID       string
	Position int64
}

// Eligible reports whether userID may write a testimonial: a verified e-mail and at least one
// confirmed deposit, as the read models say. It answers the caller's page (a query, which waits
// for the caller's position); Submit decides on the streams instead.
func (s *Service) Eligible(ctx context.Context, userID string) (bool, error) {
	u, err := users.Get(ctx, pgread.On(ctx, s.pool), userID)
	if err != nil {
		return false, err
	}
	if !u.IsVerified || u.Status == identity.StatusClosed {
		return false, nil
	}
	return activity.IsInvestor(ctx, pgread.On(ctx, s.pool), userID)
}

// eligibleNow is Eligible decided on the user's streams: a command reads the event store, not
// the read models, which may not have caught up with a sign-up or a deposit confirmed a moment
// ago (docs/architecture.md, "Read-your-writes").
func (s *Service) eligibleNow(ctx context.Context, userID string) (bool, error) {
	u, err := command.Load(ctx, s.commands, eventstore.NewStreamID(identity.StreamCategory, userID), identity.New)
	if err != nil {
		return false, err
	}
	if !u.Registered() || !u.EmailVerified() || u.Status() == identity.StatusClosed {
		return false, nil
	}
	var deposited bool
	err = command.Read(ctx, s.commands, eventstore.NewStreamID(account.StreamCategory, userID), account.NewFor(userID), func(acc *account.Account) error {
		deposited = slices.ContainsFunc(acc.Deposits(), func(d account.Deposit) bool { return d.Status == account.StatusConfirmed })
		return nil
	})
	return deposited, err
}

// Submit writes the caller's testimonial, pending review. A caller who is not a verified
// investor, or who has a pending or approved one already, is refused and nothing is stored.
func (s *Service) Submit(ctx context.Context, a Actor, text string) (Submitted, error) {
	eligible, err := s.eligibleNow(ctx, a.UserID)
	if err != nil {
		return Submitted{}, err
	}
	id := uuid.Must(uuid.NewV7()).String()
	stream := Stream(id)
	res, err := command.Submit(ctx, s.commands, stream, testimonial.New, a.meta(),
		func(t *testimonial.Testimonial, w *command.Writes) error {
			if err := t.Submit(id, a.UserID, text, eligible, s.clock.Now()); err != nil {
				return err
			}
			w.Add(`INSERT INTO testimonial_authors (user_id, testimonial_id, claimed_at) VALUES ($1, $2, $3)`, a.UserID, id, s.clock.Now())
			w.OnUnique("testimonial_authors_pkey", testimonial.ErrAlreadyWritten)
			return nil
		})
	if err != nil {
		return Submitted{}, err
	}
	return Submitted{ID: id, Position: res.Position}, nil
}

// Approve publishes a pending testimonial. Staff cannot decide their own.
func (s *Service) Approve(ctx context.Context, a Actor, id string) (int64, error) {
	if err := checkID(id); err != nil {
		return 0, err
	}
	res, err := command.Execute(ctx, s.commands, Stream(id), testimonial.New, a.meta(), func(t *testimonial.Testimonial) error {
		return t.Approve(a.UserID, s.clock.Now())
	})
	return res.Position, err
}

// Reject keeps a pending testimonial off the site and frees the author's place for a new one.
func (s *Service) Reject(ctx context.Context, a Actor, id, reason string) (int64, error) {
	if err := checkID(id); err != nil {
		return 0, err
	}
	stream := Stream(id)
	res, err := command.Submit(ctx, s.commands, stream, testimonial.New, a.meta(),
		func(t *testimonial.Testimonial, w *command.Writes) error {
			if err := t.Reject(a.UserID, reason, s.clock.Now()); err != nil {
				return err
			}
			w.Add(`DELETE FROM testimonial_authors WHERE user_id = $1 AND testimonial_id = $2`, t.UserID(), id)
			return nil
		})
	return res.Position, err
}

// checkID refuses ids that cannot be a testimonial's before they reach the store.
func checkID(id string) error {
	if _, err := uuid.Parse(id); err != nil {
		return testimonial.ErrNotFound
	}
	return nil
}

// Author is a testimonial's author as the public sees them: first name and last initial, and
// the country of their profile.
type Author struct {
	DisplayName string
	Country     string // the country's name; "" when unknown
}

// DisplayName is "Ada L." for "Ada Lovelace", "Ada" for a single name.
func DisplayName(name string) string {
	parts := strings.Fields(name)
	if len(parts) == 0 {
		return ""
	}
	first := parts[0]
	if len(parts) == 1 {
		return first
	}
	r, _ := utf8.DecodeRuneInString(parts[len(parts)-1])
	return first + " " + strings.ToUpper(string(r)) + "."
}

func countryName(code string) string {
	if c, ok := geo.Lookup(code); ok {
		return c.Name
	}
	return ""
}

// Published is one approved testimonial for the public list.
type Published struct {
	ID        string
	Author    Author
	Text      string
	Published time.Time
}

// Public lists the approved testimonials, most recently approved first. A testimonial whose
// author is gone from the users read model (or closed) is left out.
func (s *Service) Public(ctx context.Context) ([]Published, error) {
	list, err := testimonials.Approved(ctx, pgread.On(ctx, s.pool), listLimit)
	if err != nil {
		return nil, err
	}
	out := make([]Published, 0, len(list))
	for _, t := range list {
		u, err := users.Get(ctx, pgread.On(ctx, s.pool), t.UserID)
		if err != nil || u.Status == identity.StatusClosed || DisplayName(u.Name) == "" {
			continue
		}
		out = append(out, Published{ID: t.ID, Author: Author{DisplayName: DisplayName(u.Name), Country: countryName(u.Country)},
			Text: t.Text, Published: *t.DecidedAt})
	}
	return out, nil
}

// Review is one testimonial in the staff queue: staff see who wrote it.
type Review struct {
	ID          string
	UserID      string
	Name        string
	Email       string
	Country     string
	Text        string
	SubmittedAt time.Time
}

// Pending lists the testimonials waiting for staff, oldest first.
func (s *Service) Pending(ctx context.Context) ([]Review, error) {
	list, err := testimonials.Pending(ctx, pgread.On(ctx, s.pool), listLimit)
	if err != nil {
		return nil, err
	}
	out := make([]Review, 0, len(list))
	for _, t := range list {
		r := Review{ID: t.ID, UserID: t.UserID, Text: t.Text, SubmittedAt: t.SubmittedAt}
		if u, err := users.Get(ctx, pgread.On(ctx, s.pool), t.UserID); err == nil {
			r.Name, r.Email, r.Country = u.Name, u.Email, countryName(u.Country)
		}
		out = append(out, r)
	}
	return out, nil
}

// PendingCount is how many testimonials wait for staff, all of them.
func (s *Service) PendingCount(ctx context.Context) (int, error) {
	return testimonials.CountPending(ctx, pgread.On(ctx, s.pool))
}

// Mine is the dashboard card's view: whether the user may write, and their latest testimonial.
type Mine struct {
	Eligible bool
	Latest   *testimonials.Testimonial
}

// Mine reads the caller's standing for the dashboard card.
func (s *Service) Mine(ctx context.Context, userID string) (Mine, error) {
	eligible, err := s.Eligible(ctx, userID)
	if err != nil {
		return Mine{}, err
	}
	t, ok, err := testimonials.Latest(ctx, pgread.On(ctx, s.pool), userID)
	if err != nil {
		return Mine{}, err
	}
	m := Mine{Eligible: eligible}
	if ok {
		m.Latest = &t
	}
	return m, nil
}
