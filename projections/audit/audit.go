// Package audit is the read model behind the staff audit log: one entry for every event a staff
// member caused on someone else's behalf, with who (actor, the role they acted in, whom they
// impersonated), on whom (the target user), when, from where (the client address, kept sealed as
// the log stores it), why (the reason they gave) and what (the event type, the reference of the
// movement it decided, the amount).
//
// The rule is generic, so that a new kind of staff action is audited without code here: an event
// is a staff action when its metadata names a staff actor (actorRole author or admin) or an
// impersonating staff member, and the user it concerns is not that actor. The user it concerns is
// the stream's id for user-… and account-… streams, else the payload's top-level userId, else the
// userId of an earlier event of the same stream (a proposal's approval concerns the user its
// opening named). What the entry shows is read from the stored payload's common top-level fields
// (reason or notes, amount or received, a deposit, investment, withdrawal or adjustment id turned
// into its reference), so the payload is never decoded: an event type this binary does not know
// is audited all the same, and nothing sealed is opened.
package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/domain/account"
	"clearvest/domain/identity"
	"clearvest/domain/reference"
	"clearvest/eventstore"
	"clearvest/projections"
)

// Name of the projection; its tables live in schema rm_audit.
const Name = "audit"

// StaffRoles are the roles whose actions are audited.
var StaffRoles = []string{string(identity.RoleAuthor), string(identity.RoleAdmin)}

// Projection implements projections.Projection.
type Projection struct{}

var _ projections.Bulk = Projection{}

// New returns the projection. It reads stored payloads as JSON and needs no codec.
func New() Projection { return Projection{} }

// Name implements projections.Projection.
func (Projection) Name() string { return Name }

// Schema implements projections.Projection. client_ip is the metadata's address as stored
// (sealed for the person who sent the request); queries open it, so erasing that person erases
// it here too.
func (Projection) Schema() string {
	return `
CREATE TABLE entries (
    position        bigint      PRIMARY KEY,
    at              timestamptz NOT NULL,
    event_id        text        NOT NULL,
    stream_id       text        NOT NULL,
    event_type      text        NOT NULL,
    actor_id        text        NOT NULL,
    actor_role      text        NOT NULL,
    impersonator_id text        NOT NULL,
    target_user     text        NOT NULL,
    reference       text        NOT NULL,
    amount          text        NOT NULL,
    reason          text        NOT NULL,
    client_ip       text        NOT NULL,
    correlation_id  text        NOT NULL
);
CREATE INDEX entries_actor ON entries (actor_id, position);
CREATE INDEX entries_target ON entries (target_user, position);
CREATE INDEX entries_type ON entries (event_type, position);
CREATE INDEX entries_at ON entries (at, position);
CREATE TABLE stream_users (
    stream_id text PRIMARY KEY,
    user_id   text NOT NULL
);
CREATE TABLE kinds (
    event_type text PRIMARY KEY
);`
}

// row is one entries row; the JSON names are the column names, for jsonb_populate_recordset.
type row struct {
	Position       int64     `json:"position"`
	At             time.Time `json:"at"`
	EventID        string    `json:"event_id"`
	StreamID       string    `json:"stream_id"`
	EventType      string    `json:"event_type"`
	ActorID        string    `json:"actor_id"`
	ActorRole      string    `json:"actor_role"`
	ImpersonatorID string    `json:"impersonator_id"`
	TargetUser     string    `json:"target_user"`
	Reference      string    `json:"reference"`
	Amount         string    `json:"amount"`
	Reason         string    `json:"reason"`
	ClientIP       string    `json:"client_ip"`
	CorrelationID  string    `json:"correlation_id"`
}

type streamUser struct {
	StreamID string `json:"stream_id"`
	UserID   string `json:"user_id"`
}

// userStreams are the categories whose stream id is the user the events concern.
func userStream(s eventstore.StreamID) bool {
	c := s.Category()
	return c == identity.StreamCategory || c == account.StreamCategory
}

// IsStaff reports whether the metadata names a staff member at the keyboard.
func IsStaff(m eventstore.Metadata) bool {
	if m.ImpersonatorID != "" {
		return true
	}
	for _, r := range StaffRoles {
		if m.ActorRole == r {
			return m.ActorID != ""
		}
	}
	return false
}

// entryOf reads one event: the user its stream belongs to when the payload names one on a stream
// that is not a user's own (owner), and its entry when a staff member caused it (staff). The
// entry's target is left empty when only the stream's owner, found at insert time, can name it.
// The payload is read only for what is needed: most events of a log are neither.
func entryOf(env eventstore.Envelope) (owner string, r row, staff bool) {
	own := userStream(env.StreamID)
	staff = IsStaff(env.Metadata)
	if own && !staff {
		return "", row{}, false
	}
	fields := topLevel(env.Data)
	if !own {
		owner = fields.str("userId")
	}
	if !staff {
		return owner, row{}, false
	}
	r = row{
		Position: env.Position, At: env.RecordedAt.UTC(), EventID: env.ID.String(), StreamID: string(env.StreamID),
		EventType: env.Type, ActorID: env.Metadata.ActorID, ActorRole: env.Metadata.ActorRole,
		ImpersonatorID: env.Metadata.ImpersonatorID, ClientIP: env.Metadata.ClientIP,
		CorrelationID: env.Metadata.CorrelationID,
		Reference:     fields.reference(), Amount: fields.amount(), Reason: fields.reason(),
	}
	if r.ImpersonatorID != "" {
		// The person at the keyboard is the staff member, acting as the user.
		r.ActorID = r.ImpersonatorID
	}
	if own {
		r.TargetUser = env.StreamID.ID()
	} else {
		r.TargetUser = owner
	}
	return owner, r, true
}

// Apply records the batch's stream owners first, then inserts its staff actions, resolving each
// one's target from the payload, the stream or an earlier event of the stream, and leaving out
// what a staff member did to their own account.
func (Projection) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	var owners []streamUser
	var rows []row
	for _, env := range events {
		owner, r, staff := entryOf(env)
		if owner != "" {
			owners = append(owners, streamUser{StreamID: string(env.StreamID), UserID: owner})
		}
		if staff {
			rows = append(rows, r)
		}
	}
	if len(owners) > 0 {
		data, err := json.Marshal(owners)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO stream_users SELECT DISTINCT ON (stream_id) * FROM jsonb_populate_recordset(NULL::stream_users, $1::jsonb)
			ON CONFLICT (stream_id) DO NOTHING`, string(data)); err != nil {
			return fmt.Errorf("audit: stream owners: %w", err)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	data, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO entries
		SELECT r.position, r.at, r.event_id, r.stream_id, r.event_type, r.actor_id, r.actor_role, r.impersonator_id,
		       COALESCE(NULLIF(r.target_user, ''), su.user_id, ''), r.reference, r.amount, r.reason, r.client_ip, r.correlation_id
		FROM jsonb_populate_recordset(NULL::entries, $1::jsonb) r LEFT JOIN stream_users su ON su.stream_id = r.stream_id
		WHERE COALESCE(NULLIF(r.target_user, ''), su.user_id, '') <> r.actor_id`, string(data)); err != nil {
		return fmt.Errorf("audit: insert: %w", err)
	}
	// The kinds the log holds, for the filter's choices without scanning the log.
	if _, err := tx.Exec(ctx, `INSERT INTO kinds SELECT DISTINCT event_type FROM entries WHERE position = ANY($1) ON CONFLICT DO NOTHING`,
		positions(rows)); err != nil {
		return fmt.Errorf("audit: kinds: %w", err)
	}
	return nil
}

// Builder implements projections.Bulk: a rebuild holds the streams' owners and the kinds seen,
// and copies each batch's entries, their targets resolved as Apply resolves them (from the
// owners named up to the batch's end), leaving out what a staff member did to their own account.
func (Projection) Builder() projections.Builder {
	return &builder{owners: map[string]string{}, kinds: map[string]bool{}}
}

type builder struct {
	owners map[string]string // stream → user, the first named (ON CONFLICT DO NOTHING)
	kinds  map[string]bool
	rows   []row
}

func (b *builder) Add(_ context.Context, env eventstore.Envelope) error {
	owner, r, staff := entryOf(env)
	if _, known := b.owners[string(env.StreamID)]; owner != "" && !known {
		b.owners[string(env.StreamID)] = owner
	}
	if staff {
		b.rows = append(b.rows, r)
	}
	return nil
}

func (b *builder) Write(ctx context.Context, tx pgx.Tx, final bool) error {
	entries := make([][]any, 0, len(b.rows))
	for _, r := range b.rows {
		if r.TargetUser == "" {
			r.TargetUser = b.owners[r.StreamID]
		}
		if r.TargetUser == r.ActorID {
			continue
		}
		b.kinds[r.EventType] = true
		entries = append(entries, []any{r.Position, r.At, r.EventID, r.StreamID, r.EventType, r.ActorID, r.ActorRole,
			r.ImpersonatorID, r.TargetUser, r.Reference, r.Amount, r.Reason, r.ClientIP, r.CorrelationID})
	}
	b.rows = b.rows[:0]
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"entries"}, []string{"position", "at", "event_id", "stream_id", "event_type",
		"actor_id", "actor_role", "impersonator_id", "target_user", "reference", "amount", "reason", "client_ip", "correlation_id"},
		pgx.CopyFromRows(entries)); err != nil {
		return fmt.Errorf("audit: copy entries: %w", err)
	}
	if !final {
		return nil // later events may name more owners and kinds
	}
	streams := slices.Sorted(maps.Keys(b.owners))
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"stream_users"}, []string{"stream_id", "user_id"},
		pgx.CopyFromSlice(len(streams), func(i int) ([]any, error) { return []any{streams[i], b.owners[streams[i]]}, nil })); err != nil {
		return fmt.Errorf("audit: copy stream owners: %w", err)
	}
	kinds := slices.Sorted(maps.Keys(b.kinds))
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"kinds"}, []string{"event_type"},
		pgx.CopyFromSlice(len(kinds), func(i int) ([]any, error) { return []any{kinds[i]}, nil })); err != nil {
		return fmt.Errorf("audit: copy kinds: %w", err)
	}
	b.owners, b.kinds = nil, nil
	return nil
}

func positions(rows []row) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r.Position
	}
	return out
}

// payload is an event's stored top-level fields.
type payload map[string]json.RawMessage

func topLevel(data json.RawMessage) payload {
	var p payload
	if json.Unmarshal(data, &p) != nil {
		return nil
	}
	return p
}

// str is a top-level string field, "" when absent or not a string.
func (p payload) str(name string) string {
	raw, ok := p[name]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// plain is str for text shown in the log: a sealed value (personal data) stays unread.
func (p payload) plain(name string) string {
	s := p.str(name)
	if strings.HasPrefix(s, eventstore.SealedPrefix) {
		return ""
	}
	return s
}

// referenceFields turn a movement's id into the reference investors and staff know it by.
var referenceFields = []struct {
	field string
	kind  reference.Kind
}{
	{"depositId", reference.Deposit}, {"investmentId", reference.Investment},
	{"withdrawalId", reference.Withdrawal}, {"adjustmentId", reference.Adjustment},
}

// idFields name other subjects as they are.
var idFields = []string{"transactionId", "subjectId", "ticketId", "testimonialId", "planId", "proposalId"}

func (p payload) reference() string {
	for _, f := range referenceFields {
		if id := p.str(f.field); id != "" {
			return reference.For(f.kind, id)
		}
	}
	for _, f := range idFields {
		if id := p.plain(f); id != "" {
			return id
		}
	}
	return ""
}

func (p payload) amount() string {
	for _, f := range []string{"received", "amount"} {
		if a := p.plain(f); a != "" && strings.Trim(a, "0.") != "" {
			return a
		}
	}
	return ""
}

func (p payload) reason() string {
	for _, f := range []string{"reason", "notes"} {
		if r := p.plain(f); r != "" {
			return r
		}
	}
	return ""
}
