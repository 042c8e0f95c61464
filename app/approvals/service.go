// Package approvals is the application service of the four-eyes rule (domain/proposal): staff
// propose a decision that needs a second person, and a second, different staff member approves
// or rejects it. The approval and the decision it approves commit in one transaction: the
// capability that owns the decision (money, accounts) carries it out through the executor it
// registered for the proposal's kind, under a context that appends the approval alongside
// (command.WithAlongside).
//
// The service does not decide which decisions need a proposal (the money and accounts services
// do, from configured thresholds) nor who may approve (the API policy does).
package approvals

import (
	"clearvest/platform/pgread"
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/command"
	"clearvest/domain/clock"
	"clearvest/domain/identity"
	"clearvest/domain/money"
	"clearvest/domain/proposal"
	"clearvest/eventstore"
	"clearvest/platform/pgmigrate"
	"clearvest/projections/proposals"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations creates approval_refs.
var Migrations = pgmigrate.MustFromFS("approvals", migrationFS, "migrations")

// Actor is a staff member proposing or deciding.
type Actor struct {
	UserID string
	Role   identity.Role
	IP     string
}

// Executor carries out an approved proposal as approver. It must run its decision with
// command.Submit under ctx, so that the approval is appended with the decision, in its round
// trip, and return the position of the last event.
type Executor func(ctx context.Context, approver Actor, p proposal.Proposal) (int64, error)

// Request is a decision that needs a second person.
type Request struct {
	Kind      proposal.Kind
	SubjectID string
	UserID    string
	Amount    money.Money
	Why       string
	Params    map[string]string
	Reason    string
}

// Proposed is an opened proposal and the position of its event.
type Proposed struct {
	ProposalID string
	Position   int64
}

// Errors of the service.
var (
	ErrNoExecutor = errors.New("approvals: no executor for this kind of proposal")
	errNotApplied = errors.New("approvals: the executor did not record the approval with its decision")
)

// Deps are the service's collaborators.
type Deps struct {
	Pool     *pgxpool.Pool
	Commands *command.Runner // appends with statements (command.Submit); executors may need transactions too
	Clock    clock.Clock
	Logger   *slog.Logger
}

// Service runs proposals. Register every kind's executor before serving.
type Service struct {
	pool      *pgxpool.Pool
	commands  *command.Runner
	clock     clock.Clock
	log       *slog.Logger
	executors map[proposal.Kind]Executor
}

// New wires the service.
func New(d Deps) (*Service, error) {
	if d.Pool == nil || d.Commands == nil {
		return nil, errors.New("approvals: New needs a pool and a command runner")
	}
	if d.Clock == nil {
		d.Clock = clock.System()
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	return &Service{pool: d.Pool, commands: d.Commands, clock: d.Clock, log: d.Logger, executors: map[proposal.Kind]Executor{}}, nil
}

// Handle registers what carries out approved proposals of kind.
func (s *Service) Handle(kind proposal.Kind, exec Executor) { s.executors[kind] = exec }

func streamOf(kind proposal.Kind, subjectID string) eventstore.StreamID {
	return eventstore.NewStreamID(proposal.StreamCategory, proposal.Stream(kind, subjectID))
}

func metaFor(a Actor) eventstore.Metadata {
	return eventstore.Metadata{ActorID: a.UserID, ActorRole: string(a.Role), ClientIP: a.IP}
}

// Propose opens a proposal; a subject with an open proposal refuses a second one (409).
func (s *Service) Propose(ctx context.Context, a Actor, r Request) (Proposed, error) {
	if _, ok := s.executors[r.Kind]; !ok {
		return Proposed{}, fmt.Errorf("%w: %s", ErrNoExecutor, r.Kind)
	}
	id := uuid.NewString()
	stream := streamOf(r.Kind, r.SubjectID)
	res, err := command.Submit(ctx, s.commands, stream, proposal.New, metaFor(a),
		func(subj *proposal.Subject, w *command.Writes) error {
			now := s.clock.Now()
			if err := subj.Open(proposal.Opened{ProposalID: id, Kind: r.Kind, SubjectID: r.SubjectID, UserID: r.UserID,
				Amount: r.Amount, Why: r.Why, Params: r.Params, ProposerID: a.UserID, Reason: r.Reason}, now); err != nil {
				return err
			}
			w.Add(`INSERT INTO approval_refs (proposal_id, stream_id, created_at) VALUES ($1, $2, $3)`, id, string(stream), now)
			return nil
		})
	if err != nil {
		return Proposed{}, err
	}
	if res.IdempotentReplay {
		// A repeat of the request that opened a proposal here, since rejected: that proposal.
		return openedBy(stream, res)
	}
	return Proposed{ProposalID: id, Position: res.Position}, nil
}

// openedBy is the proposal a request's events on stream opened.
func openedBy(stream eventstore.StreamID, res command.Result) (Proposed, error) {
	for _, e := range res.Raised {
		if o, ok := e.(proposal.Opened); ok {
			return Proposed{ProposalID: o.ProposalID, Position: res.Position}, nil
		}
	}
	// The same request (its hash names the route) cannot both open a proposal and decide one.
	return Proposed{}, fmt.Errorf("approvals: the request's events on %s open no proposal", stream)
}

// Earlier answers a request that carries an Idempotency-Key claim (command.WithClaim) and
// opened a proposal on the subject in an earlier run: the proposal it opened. A decision that
// may become a proposal asks when its checks refuse it, as waiting for a second staff member.
func (s *Service) Earlier(ctx context.Context, kind proposal.Kind, subjectID string) (Proposed, bool, error) {
	stream := streamOf(kind, subjectID)
	res, ok, err := command.Earlier(ctx, s.commands, stream)
	if !ok || err != nil {
		return Proposed{}, ok, err
	}
	p, err := openedBy(stream, res)
	return p, true, err
}

// Pending returns the open proposal on a subject, if any: a single person's decision on that
// subject waits for it.
func (s *Service) Pending(ctx context.Context, kind proposal.Kind, subjectID string) (proposal.Proposal, bool, error) {
	subj, err := command.Load(ctx, s.commands, streamOf(kind, subjectID), proposal.New)
	if err != nil {
		return proposal.Proposal{}, false, err
	}
	p, open := subj.Pending()
	return p, open, nil
}

// Approve approves proposal id as a, who must not be its proposer, and carries out its decision
// in the same transaction. params adds what only the approver knows (a payout's transaction
// hash, sent once two people agreed); it never overrides what was proposed.
func (s *Service) Approve(ctx context.Context, a Actor, id, reason string, params map[string]string) (int64, error) {
	stream, err := s.stream(ctx, id)
	if err != nil {
		return 0, err
	}
	subj, err := command.Load(ctx, s.commands, stream, proposal.New)
	if err != nil {
		return 0, err
	}
	if err := subj.Approve(id, a.UserID, reason, s.clock.Now()); err != nil {
		// A repeat of an approval that went through finds the proposal decided: it gets the
		// answer its first run got, when the request carries a claim (command.Earlier).
		if res, ok, eerr := command.Earlier(ctx, s.commands, stream); ok || eerr != nil {
			return res.Position, eerr
		}
		return 0, err
	}
	p, _ := subj.Proposal(id)
	exec, ok := s.executors[p.Kind]
	if !ok {
		return 0, fmt.Errorf("%w: %s", ErrNoExecutor, p.Kind)
	}
	merged := maps.Clone(p.Params)
	if merged == nil {
		merged = map[string]string{}
	}
	for k, v := range params {
		if _, proposed := merged[k]; !proposed {
			merged[k] = v
		}
	}
	p.Params = merged
	actx, al := command.WithAlongside(ctx, command.Change{Stream: stream, Aggregate: subj})
	pos, err := exec(actx, a, p)
	if errors.Is(err, eventstore.ErrConcurrency) {
		// Another approver's decision got there first.
		if fresh, lerr := command.Load(ctx, s.commands, stream, proposal.New); lerr == nil {
			if q, _ := fresh.Proposal(id); q.Status != proposal.StatusPending {
				return 0, proposal.ErrDecided
			}
		}
	}
	if err != nil {
		return 0, err
	}
	if !al.Appended() {
		s.log.ErrorContext(ctx, "approvals: an executor decided without recording the approval", "proposal", id, "kind", p.Kind)
		return 0, errNotApplied
	}
	return pos, nil
}

// Reject refuses proposal id as a, who must not be its proposer; nothing is decided.
func (s *Service) Reject(ctx context.Context, a Actor, id, reason string) (int64, error) {
	stream, err := s.stream(ctx, id)
	if err != nil {
		return 0, err
	}
	res, err := command.Submit(ctx, s.commands, stream, proposal.New, metaFor(a),
		func(subj *proposal.Subject, _ *command.Writes) error {
			return subj.Reject(id, a.UserID, reason, s.clock.Now())
		})
	if err != nil {
		return 0, err
	}
	return res.Position, nil
}

// Get returns one proposal by id.
func (s *Service) Get(ctx context.Context, id string) (proposal.Proposal, error) {
	stream, err := s.stream(ctx, id)
	if err != nil {
		return proposal.Proposal{}, err
	}
	subj, err := command.Load(ctx, s.commands, stream, proposal.New)
	if err != nil {
		return proposal.Proposal{}, err
	}
	p, ok := subj.Proposal(id)
	if !ok {
		return proposal.Proposal{}, proposal.ErrNotFound
	}
	return p, nil
}

func (s *Service) stream(ctx context.Context, id string) (eventstore.StreamID, error) {
	id = strings.TrimSpace(id)
	if _, err := uuid.Parse(id); err != nil {
		return "", proposal.ErrNotFound
	}
	var stream string
	err := s.pool.QueryRow(ctx, `SELECT stream_id FROM approval_refs WHERE proposal_id = $1`, id).Scan(&stream)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", proposal.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("approvals: proposal ref: %w", err)
	}
	return eventstore.StreamID(stream), nil
}

// PendingCount is how many proposals wait for a second person, all of them.
func (s *Service) PendingCount(ctx context.Context) (int, error) {
	return proposals.CountPending(ctx, pgread.On(ctx, s.pool))
}

// Queue is what the staff queue shows: proposals waiting for a second person, oldest first, and
// the latest decided ones, newest first.
type Queue struct {
	Pending []proposals.Row
	Recent  []proposals.Row
}

// List returns up to pending waiting proposals and recent decided ones.
func (s *Service) List(ctx context.Context, pending, recent int) (Queue, error) {
	p, err := proposals.Pending(ctx, pgread.On(ctx, s.pool), pending)
	if err != nil {
		return Queue{}, err
	}
	r, err := proposals.Recent(ctx, pgread.On(ctx, s.pool), recent)
	if err != nil {
		return Queue{}, err
	}
	return Queue{Pending: p, Recent: r}, nil
}
