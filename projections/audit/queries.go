package audit

import (
	"clearvest/platform/pgread"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Page sizes of the log: DefaultLimit when none is asked, at most MaxLimit.
const (
	DefaultLimit = 50
	MaxLimit     = 500
)

// Filter selects entries. Empty fields select everything; Before pages (entries below that
// position, newest first).
type Filter struct {
	Actor  string // a staff member's id, or their e-mail (any case)
	Target string // the target user's id, or their e-mail (any case)
	Kind   string // an event type, e.g. account.deposit_confirmed
	From   time.Time
	To     time.Time // exclusive
	Before int64
	Limit  int
}

// Entry is one staff action.
type Entry struct {
	Position       int64
	At             time.Time
	EventID        string
	StreamID       string
	Kind           string
	ActorID        string
	ActorEmail     string
	ActorRole      string
	ImpersonatorID string
	TargetUser     string
	TargetEmail    string
	Reference      string
	Amount         string
	Reason         string
	// ClientIP is as stored: the caller opens it (eventstore.Registry.OpenMetadata).
	ClientIP      string
	CorrelationID string
}

// Log returns a page of entries, newest first, and whether more follow.
func Log(ctx context.Context, pool pgread.Querier, f Filter) ([]Entry, bool, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	person := func(idCol, emailCol, v string) {
		if strings.Contains(v, "@") {
			where = append(where, "lower("+emailCol+") = lower("+arg(strings.TrimSpace(v))+")")
		} else {
			where = append(where, idCol+" = "+arg(strings.TrimSpace(v)))
		}
	}
	if f.Actor != "" {
		person("e.actor_id", "a.email", f.Actor)
	}
	if f.Target != "" {
		person("e.target_user", "u.email", f.Target)
	}
	if f.Kind != "" {
		where = append(where, "e.event_type = "+arg(f.Kind))
	}
	if !f.From.IsZero() {
		where = append(where, "e.at >= "+arg(f.From))
	}
	if !f.To.IsZero() {
		where = append(where, "e.at < "+arg(f.To))
	}
	if f.Before > 0 {
		where = append(where, "e.position < "+arg(f.Before))
	}
	q := `SELECT e.position, e.at, e.event_id, e.stream_id, e.event_type, e.actor_id, COALESCE(a.email, ''), e.actor_role,
		e.impersonator_id, e.target_user, COALESCE(u.email, ''), e.reference, e.amount, e.reason, e.client_ip, e.correlation_id
		FROM rm_audit.entries e
		LEFT JOIN rm_users.users a ON a.id = e.actor_id
		LEFT JOIN rm_users.users u ON u.id = e.target_user`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY e.position DESC LIMIT " + arg(limit+1)
	rows, err := pool.Query(ctx, q, args...)
	if err != nil {
		return nil, false, fmt.Errorf("audit: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(rs pgx.CollectableRow) (Entry, error) {
		var e Entry
		err := rs.Scan(&e.Position, &e.At, &e.EventID, &e.StreamID, &e.Kind, &e.ActorID, &e.ActorEmail, &e.ActorRole,
			&e.ImpersonatorID, &e.TargetUser, &e.TargetEmail, &e.Reference, &e.Amount, &e.Reason, &e.ClientIP, &e.CorrelationID)
		e.At = e.At.UTC()
		return e, err
	})
	if err != nil {
		return nil, false, fmt.Errorf("audit: %w", err)
	}
	more := len(list) > limit
	if more {
		list = list[:limit]
	}
	return list, more, nil
}

// Kinds lists the event types the log holds, for the filter's choices.
func Kinds(ctx context.Context, pool pgread.Querier) ([]string, error) {
	rows, err := pool.Query(ctx, `SELECT event_type FROM rm_audit.kinds ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	return out, nil
}

// summaries describe the staff actions known today in words; Describe falls back to the type.
var summaries = map[string]string{
	"account.deposit_confirmed":    "Confirmed deposit",
	"account.deposit_rejected":     "Rejected deposit",
	"account.investment_activated": "Approved investment",
	"account.investment_rejected":  "Rejected investment",
	"account.withdrawal_approved":  "Approved withdrawal",
	"account.withdrawal_rejected":  "Rejected withdrawal",
	"account.fee_waived":           "Waived fee",
	"account.adjustment_posted":    "Posted adjustment",
	"user.role_changed":            "Changed role",
	"user.suspended":               "Suspended account",
	"user.reinstated":              "Reinstated account",
	"user.closed":                  "Closed account",
	"user.staff_accessed":          "Viewed account",
	"kyc.approved":                 "Approved identity check",
	"kyc.rejected":                 "Rejected identity check",
	"kyc.document_viewed":          "Viewed identity document",
	"proposal.opened":              "Proposed decision",
	"proposal.approved":            "Approved proposal",
	"proposal.rejected":            "Rejected proposal",
	"support.ticket_replied":       "Replied to ticket",
	"support.ticket_closed":        "Closed ticket",
	"testimonial.approved":         "Approved testimonial",
	"testimonial.rejected":         "Rejected testimonial",
	"plan.created":                 "Created plan",
	"plan.terms_changed":           "Changed plan terms",
	"plan.activated":               "Activated plan",
	"plan.deactivated":             "Deactivated plan",
}

// Describe says what an entry did, e.g. "Confirmed deposit DEP-7K3M9Q2X". A type without a
// description reads as its name ("account.fee_exemption_granted" → "Account: fee exemption
// granted").
func Describe(kind, ref string) string {
	s, ok := summaries[kind]
	if !ok {
		category, rest, found := strings.Cut(kind, ".")
		if found && category != "" {
			s = strings.ToUpper(category[:1]) + category[1:] + ": " + strings.ReplaceAll(rest, "_", " ")
		} else {
			s = kind
		}
	}
	if ref != "" {
		s += " " + ref
	}
	return s
}
