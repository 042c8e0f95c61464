// Package securitylog is the read model behind a user's security page: registration,
// verification, password changes, sign-ins from new devices, two-factor changes, and what staff
// did to the account (role changes, suspension, impersonation), and the identity check (documents
// sent, decisions, and each time staff viewed a document), newest first.
//
// Addresses shown are the user's own: from the event for a new-device sign-in, otherwise from the
// event metadata (sealed there, opened through the codec), and only when the user acted
// themselves. Staff actions show no address, because
// a staff member's network location is not the user's to see. When an account is closed its
// entries lose their addresses and browsers, as the users read model loses the profile.
package securitylog

import (
	"clearvest/platform/pgread"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/domain/identity"
	"clearvest/domain/kyc"
	"clearvest/eventstore"
	"clearvest/projections"
)

// Name of the projection; its tables live in schema rm_securitylog.
const Name = "securitylog"

// Entry kinds.
const (
	KindRegistered        = "registered"
	KindEmailVerified     = "email_verified"
	KindPasswordChanged   = "password_changed" // detail: "change" or "reset"
	KindNewDeviceSignIn   = "new_device_sign_in"
	KindTwoFactorEnabled  = "two_factor_enabled"
	KindTwoFactorDisabled = "two_factor_disabled"
	KindStaffAccess       = "staff_access" // detail: the reason staff gave
	KindRoleChanged       = "role_changed" // detail: "<from> → <to>"
	KindSuspended         = "suspended"    // detail: the reason
	KindReinstated        = "reinstated"
	KindKYCSubmitted      = "kyc_submitted"       // detail: the submission number
	KindKYCApproved       = "kyc_approved"        // actor: the reviewer
	KindKYCRejected       = "kyc_rejected"        // actor: the reviewer
	KindKYCDocumentViewed = "kyc_document_viewed" // detail: the side; actor: the staff member
	KindPasskeyAdded      = "passkey_added"
	KindPasskeyRemoved    = "passkey_removed"
	// KindStaffViewed: an admin viewed the site as the user; detail: the staff member's role
	// (never their name or id).
	KindStaffViewed = "staff_viewed"
)

// Projection implements projections.Projection.
type Projection struct {
	codec *eventstore.Registry
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection. codec decodes the events; it needs the identity events registered
// and, for a log with sealed personal fields, its cipher set.
func New(codec *eventstore.Registry) *Projection {
	if codec == nil {
		panic("securitylog: New needs the event registry")
	}
	return &Projection{codec: codec}
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Version implements projections.Projection's optional definition version: 2 added the KYC
// entries and who acted (actor_id), 3 the passkeys added and removed, 4 the visits of staff
// viewing the site as the user.
func (*Projection) Version() int { return 4 }

// Schema implements projections.Projection.
func (*Projection) Schema() string {
	return `
CREATE TABLE entries (
    user_id    text        NOT NULL,
    position   bigint      NOT NULL,
    at         timestamptz NOT NULL,
    kind       text        NOT NULL,
    ip         text        NOT NULL,
    user_agent text        NOT NULL,
    detail     text        NOT NULL,
    actor_id   text        NOT NULL,
    PRIMARY KEY (user_id, position)
);`
}

// Entry is one line of a user's security log.
type Entry struct {
	Position  int64     `json:"position"`
	At        time.Time `json:"at"`
	Kind      string    `json:"kind"`
	IP        string    `json:"ip,omitempty"`
	UserAgent string    `json:"userAgent,omitempty"`
	Detail    string    `json:"detail,omitempty"`
	// ActorID is the staff member who acted, for entries that name one.
	ActorID string `json:"actorId,omitempty"`
}

// row is one entries row; the JSON names are the column names, for jsonb_populate_recordset.
type row struct {
	UserID    string    `json:"user_id"`
	Position  int64     `json:"position"`
	At        time.Time `json:"at"`
	Kind      string    `json:"kind"`
	IP        string    `json:"ip"`
	UserAgent string    `json:"user_agent"`
	Detail    string    `json:"detail"`
	ActorID   string    `json:"actor_id"`
}

var handled = map[string]bool{
	identity.TypeRegistered: true, identity.TypeEmailVerified: true, identity.TypePasswordChanged: true,
	identity.TypeSignedInNewDevice: true, identity.TypeTwoFactorEnabled: true, identity.TypeTwoFactorDisabled: true,
	identity.TypeStaffAccessed: true, identity.TypeRoleChanged: true, identity.TypeSuspended: true,
	identity.TypeReinstated: true, identity.TypeClosed: true,
	identity.TypePasskeyAdded: true, identity.TypePasskeyRemoved: true,
	identity.TypeImpersonationStarted: true,
	kyc.TypeSubmitted:                 true, kyc.TypeApproved: true, kyc.TypeRejected: true, kyc.TypeDocumentViewed: true,
}

// Apply inserts the batch's entries with one statement, then blanks the addresses of accounts the
// batch closed.
func (p *Projection) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	var rows []row
	var closed []string
	for _, env := range events {
		if env.StreamID.Category() != identity.StreamCategory || !handled[env.Type] {
			continue
		}
		e, err := projections.Decode(ctx, p.codec, env)
		if err != nil {
			return err
		}
		userID := env.StreamID.ID()
		if _, ok := e.(identity.Closed); ok {
			closed = append(closed, userID)
			continue
		}
		r, ok := entry(e)
		if !ok {
			return fmt.Errorf("securitylog: %s decoded into %T, which has no entry", env.Type, e)
		}
		r.UserID, r.Position, r.At = userID, env.Position, env.RecordedAt
		if selfService(r.Kind) && actedThemselves(env.Metadata, userID) {
			meta, err := p.codec.OpenMetadata(env)
			if err != nil {
				return err
			}
			r.IP = meta.ClientIP
		}
		rows = append(rows, r)
	}
	if len(rows) > 0 {
		data, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO entries SELECT * FROM jsonb_populate_recordset(NULL::entries, $1::jsonb)`, string(data)); err != nil {
			return fmt.Errorf("securitylog: insert: %w", err)
		}
	}
	if len(closed) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE entries SET ip = '', user_agent = '' WHERE user_id = ANY($1)`, closed); err != nil {
			return fmt.Errorf("securitylog: blank closed accounts: %w", err)
		}
	}
	return nil
}

func entry(e any) (row, bool) {
	switch e := e.(type) {
	case identity.Registered:
		return row{Kind: KindRegistered}, true
	case identity.EmailVerified:
		return row{Kind: KindEmailVerified}, true
	case identity.PasswordChanged:
		return row{Kind: KindPasswordChanged, Detail: e.Via}, true
	case identity.SignedInNewDevice:
		return row{Kind: KindNewDeviceSignIn, IP: e.IP, UserAgent: e.UserAgent}, true
	case identity.TwoFactorEnabled:
		return row{Kind: KindTwoFactorEnabled}, true
	case identity.TwoFactorDisabled:
		return row{Kind: KindTwoFactorDisabled}, true
	case identity.StaffAccessed:
		return row{Kind: KindStaffAccess, Detail: e.Reason}, true
	case identity.RoleChanged:
		return row{Kind: KindRoleChanged, Detail: string(e.From) + " → " + string(e.To)}, true
	case identity.Suspended:
		return row{Kind: KindSuspended, Detail: e.Reason}, true
	case identity.Reinstated:
		return row{Kind: KindReinstated}, true
	case identity.PasskeyAdded:
		return row{Kind: KindPasskeyAdded}, true
	case identity.PasskeyRemoved:
		return row{Kind: KindPasskeyRemoved}, true
	case identity.ImpersonationStarted:
		return row{Kind: KindStaffViewed, Detail: string(e.StaffRole)}, true
	case kyc.Submitted:
		return row{Kind: KindKYCSubmitted, Detail: strconv.Itoa(e.Submission)}, true
	case kyc.Approved:
		return row{Kind: KindKYCApproved, ActorID: e.ReviewerID}, true
	case kyc.Rejected:
		return row{Kind: KindKYCRejected, ActorID: e.ReviewerID}, true
	case kyc.DocumentViewed:
		return row{Kind: KindKYCDocumentViewed, Detail: string(e.Side), ActorID: e.StaffID}, true
	}
	return row{}, false
}

// selfService kinds are things a user does to their own account.
func selfService(kind string) bool {
	switch kind {
	case KindRegistered, KindEmailVerified, KindPasswordChanged, KindTwoFactorEnabled, KindTwoFactorDisabled, KindKYCSubmitted,
		KindPasskeyAdded, KindPasskeyRemoved:
		return true
	}
	return false
}

// actedThemselves: the request came from the user (or from nobody signed in, as when following
// an e-mailed link), not from staff acting on or as them.
func actedThemselves(m eventstore.Metadata, userID string) bool {
	return m.ImpersonatorID == "" && (m.ActorID == "" || m.ActorID == userID)
}

// ForUser returns a user's most recent entries, newest first (limit ≤ 0 means 50, at most 500).
func ForUser(ctx context.Context, pool pgread.Querier, userID string, limit int) ([]Entry, error) {
	if limit <= 0 {
		limit = 50
	}
	rows, err := pool.Query(ctx, `SELECT position, at, kind, ip, user_agent, detail, actor_id FROM rm_securitylog.entries
		WHERE user_id = $1 ORDER BY position DESC LIMIT $2`, userID, min(limit, 500))
	if err != nil {
		return nil, fmt.Errorf("securitylog: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(rs pgx.CollectableRow) (Entry, error) {
		var e Entry
		err := rs.Scan(&e.Position, &e.At, &e.Kind, &e.IP, &e.UserAgent, &e.Detail, &e.ActorID)
		e.At = e.At.UTC()
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("securitylog: %w", err)
	}
	return list, nil
}
