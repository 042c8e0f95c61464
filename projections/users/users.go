// Package users is the read model of users: profile (personal fields in plaintext, decrypted
// while projecting), role, status, verification, KYC status and referrals, for the API's user
// pages and the admin user list.
//
// Events are decoded through the registry, so its field cipher must be set: the log holds personal
// fields sealed. A closed account keeps its row (referral and money history refer to it) with its
// personal fields blanked, so the read model never outlives an erasure, and a rebuild after the
// user's key was destroyed yields the same rows as the live model did.
package users

import (
	"clearvest/platform/pgread"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/domain/kyc"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/keyset"
)

// Name of the projection; its tables live in schema rm_users.
const Name = "users"

// KYCNotSubmitted is the KYC status of a user who has sent no documents yet.
const KYCNotSubmitted = string(kyc.StatusNotSubmitted)

// ErrNotFound is returned for a user the read model does not hold.
var ErrNotFound = domainerr.New(domainerr.NotFound, "User not found")

// Projection implements projections.Projection.
type Projection struct {
	codec *eventstore.Registry
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection. codec decodes the events; it needs the identity events registered
// and, for a log with sealed personal fields, its cipher set.
func New(codec *eventstore.Registry) *Projection {
	if codec == nil {
		panic("users: New needs the event registry")
	}
	return &Projection{codec: codec}
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Version implements projections.Projection's optional definition version: 2 added the KYC
// status and the review queue's columns.
func (*Projection) Version() int { return 3 }

// Schema implements projections.Projection.
func (*Projection) Schema() string {
	return `
CREATE TABLE users (
    id                 text        PRIMARY KEY,
    name               text        NOT NULL,
    email              text        NOT NULL,
    email_lower        text        NOT NULL,
    phone              text        NOT NULL,
    country            text        NOT NULL,
    bio                text        NOT NULL,
    photo              text        NOT NULL,
    role               text        NOT NULL,
    status             text        NOT NULL,
    is_verified        boolean     NOT NULL,
    kyc_status         text        NOT NULL,
    referral_code      text        NOT NULL,
    referred_by        text        NOT NULL,
    two_factor_enabled boolean     NOT NULL,
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL,
    kyc_submission     integer     NOT NULL,
    kyc_submitted_at   timestamptz,
    kyc_sides          text        NOT NULL
);
CREATE INDEX users_newest ON users (created_at DESC, id DESC);
CREATE INDEX users_email_lower ON users (email_lower);
CREATE INDEX users_referred_by ON users (referred_by) WHERE referred_by <> '';
CREATE INDEX users_kyc_pending ON users (kyc_submitted_at, id) WHERE kyc_status = 'Pending';`
}

// row is one users row; the JSON names are the column names, for jsonb_populate_recordset.
type row struct {
	ID               string    `json:"id"`
	Name             string    `json:"name"`
	Email            string    `json:"email"`
	EmailLower       string    `json:"email_lower"`
	Phone            string    `json:"phone"`
	Country          string    `json:"country"`
	Bio              string    `json:"bio"`
	Photo            string    `json:"photo"`
	Role             string    `json:"role"`
	Status           string    `json:"status"`
	IsVerified       bool      `json:"is_verified"`
	KYCStatus        string    `json:"kyc_status"`
	ReferralCode     string    `json:"referral_code"`
	ReferredBy       string    `json:"referred_by"`
	TwoFactorEnabled bool      `json:"two_factor_enabled"`
	CreatedAt        time.Time `json:"created_at"`
	UpdatedAt        time.Time `json:"updated_at"`
	// The latest KYC submission: its number, when it was sent and its sides ("front,back").
	KYCSubmission  int        `json:"kyc_submission"`
	KYCSubmittedAt *time.Time `json:"kyc_submitted_at"`
	KYCSides       string     `json:"kyc_sides"`
}

const columns = `id, name, email, email_lower, phone, country, bio, photo, role, status, is_verified,
	kyc_status, referral_code, referred_by, two_factor_enabled, created_at, updated_at, kyc_submission, kyc_submitted_at, kyc_sides`

// handled are the event types that change a users row; only these are decoded.
var handled = map[string]bool{
	identity.TypeRegistered: true, identity.TypeEmailVerified: true, identity.TypeProfileUpdated: true,
	identity.TypeRoleChanged: true, identity.TypeSuspended: true, identity.TypeReinstated: true,
	identity.TypeTwoFactorEnabled: true, identity.TypeTwoFactorDisabled: true, identity.TypeClosed: true,
	kyc.TypeSubmitted: true, kyc.TypeApproved: true, kyc.TypeRejected: true,
}

// Apply folds the batch into the affected rows in memory and writes them back with one upsert,
// so a batch costs two statements however many events it holds.
func (p *Projection) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	var ids []string
	for _, env := range events {
		if env.StreamID.Category() == identity.StreamCategory && handled[env.Type] {
			ids = append(ids, env.StreamID.ID())
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := load(ctx, tx, ids)
	if err != nil {
		return err
	}
	changed := map[string]*row{}
	for _, env := range events {
		if env.StreamID.Category() != identity.StreamCategory || !handled[env.Type] {
			continue
		}
		e, err := projections.Decode(ctx, p.codec, env)
		if err != nil {
			return err
		}
		id := env.StreamID.ID()
		r := rows[id]
		if reg, ok := e.(identity.Registered); ok {
			r = &row{ID: id, Status: string(identity.StatusActive), KYCStatus: KYCNotSubmitted, CreatedAt: env.RecordedAt}
			r.Name, r.Email, r.EmailLower, r.Phone, r.Country = reg.Name, reg.Email, identity.EmailKey(reg.Email), reg.Phone, reg.Country
			r.Role, r.ReferralCode, r.ReferredBy = string(reg.Role), reg.ReferralCode, reg.ReferredBy
			rows[id] = r
		} else if r == nil {
			// Nothing to update: the stream's start is not a registration this model knows.
			continue
		} else {
			apply(r, e)
		}
		r.UpdatedAt = env.RecordedAt
		changed[id] = r
	}
	out := make([]*row, 0, len(changed))
	for _, r := range changed {
		out = append(out, r)
	}
	data, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO users SELECT * FROM jsonb_populate_recordset(NULL::users, $1::jsonb)
		ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, email = EXCLUDED.email, email_lower = EXCLUDED.email_lower,
		  phone = EXCLUDED.phone, country = EXCLUDED.country, bio = EXCLUDED.bio, photo = EXCLUDED.photo,
		  role = EXCLUDED.role, status = EXCLUDED.status, is_verified = EXCLUDED.is_verified,
		  kyc_status = EXCLUDED.kyc_status, referral_code = EXCLUDED.referral_code, referred_by = EXCLUDED.referred_by,
		  two_factor_enabled = EXCLUDED.two_factor_enabled, created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at,
		  kyc_submission = EXCLUDED.kyc_submission, kyc_submitted_at = EXCLUDED.kyc_submitted_at, kyc_sides = EXCLUDED.kyc_sides`,
		string(data))
	if err != nil {
		return fmt.Errorf("users: upsert: %w", err)
	}
	return nil
}

func apply(r *row, e any) {
	switch e := e.(type) {
	case identity.EmailVerified:
		r.IsVerified = true
	case identity.ProfileUpdated:
		r.Name, r.Phone, r.Bio, r.Country, r.Photo = e.Name, e.Phone, e.Bio, e.Country, e.Photo
	case identity.RoleChanged:
		r.Role = string(e.To)
	case identity.Suspended:
		r.Status = string(identity.StatusSuspended)
	case identity.Reinstated:
		r.Status = string(identity.StatusActive)
	case identity.TwoFactorEnabled:
		r.TwoFactorEnabled = true
	case identity.TwoFactorDisabled:
		r.TwoFactorEnabled = false
	case identity.Closed:
		r.Status = string(identity.StatusClosed)
		r.Name, r.Email, r.EmailLower, r.Phone, r.Bio, r.Photo = "", "", "", "", "", ""
	case kyc.Submitted:
		at := e.At
		sides := make([]string, len(e.Documents))
		for i, d := range e.Documents {
			sides[i] = string(d.Side)
		}
		r.KYCStatus, r.KYCSubmission, r.KYCSubmittedAt, r.KYCSides = string(kyc.StatusPending), e.Submission, &at, strings.Join(sides, ",")
	case kyc.Approved:
		r.KYCStatus = string(kyc.StatusApproved)
	case kyc.Rejected:
		r.KYCStatus = string(kyc.StatusRejected)
	}
}

func load(ctx context.Context, tx pgx.Tx, ids []string) (map[string]*row, error) {
	rows, err := tx.Query(ctx, `SELECT `+columns+` FROM users WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("users: load: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(rs pgx.CollectableRow) (*row, error) {
		var r row
		err := rs.Scan(&r.ID, &r.Name, &r.Email, &r.EmailLower, &r.Phone, &r.Country, &r.Bio, &r.Photo, &r.Role, &r.Status,
			&r.IsVerified, &r.KYCStatus, &r.ReferralCode, &r.ReferredBy, &r.TwoFactorEnabled, &r.CreatedAt, &r.UpdatedAt,
			&r.KYCSubmission, &r.KYCSubmittedAt, &r.KYCSides)
		return &r, err
	})
	if err != nil {
		return nil, fmt.Errorf("users: load: %w", err)
	}
	out := make(map[string]*row, len(list))
	for _, r := range list {
		out[r.ID] = r
	}
	return out, nil
}

// User is one user as the API shows it (field names from the specification).
type User struct {
	ID               string          `json:"_id"`
	Name             string          `json:"name"`
	Email            string          `json:"email"`
	Phone            string          `json:"phone"`
	Country          string          `json:"country"`
	Bio              string          `json:"bio"`
	Photo            string          `json:"photo"`
	Role             identity.Role   `json:"role"`
	Status           identity.Status `json:"status"`
	IsVerified       bool            `json:"isVerified"`
	KYCStatus        string          `json:"kycStatus"`
	ReferralCode     string          `json:"referralCode"`
	ReferredBy       string          `json:"referredBy"`
	TwoFactorEnabled bool            `json:"twoFactorEnabled"`
	CreatedAt        time.Time       `json:"createdAt"`
	UpdatedAt        time.Time       `json:"updatedAt"`
}

const userColumns = `id, name, email, phone, country, bio, photo, role, status, is_verified, kyc_status,
	referral_code, referred_by, two_factor_enabled, created_at, updated_at`

// qualifiedColumns are userColumns with the users table's alias, u, for queries that join.
var qualifiedColumns = "u." + strings.Join(strings.Fields(strings.ReplaceAll(userColumns, ",", " ")), ", u.")

// dest are the scan destinations of userColumns.
func (u *User) dest() []any {
	return []any{&u.ID, &u.Name, &u.Email, &u.Phone, &u.Country, &u.Bio, &u.Photo, &u.Role, &u.Status, &u.IsVerified,
		&u.KYCStatus, &u.ReferralCode, &u.ReferredBy, &u.TwoFactorEnabled, &u.CreatedAt, &u.UpdatedAt}
}

func scanUser(rs pgx.CollectableRow) (User, error) {
	var u User
	err := rs.Scan(u.dest()...)
	u.CreatedAt, u.UpdatedAt = u.CreatedAt.UTC(), u.UpdatedAt.UTC()
	return u, err
}

func one(ctx context.Context, pool pgread.Querier, where string, arg any) (User, error) {
	rows, err := pool.Query(ctx, `SELECT `+userColumns+` FROM rm_users.users WHERE `+where+` LIMIT 1`, arg)
	if err != nil {
		return User{}, fmt.Errorf("users: %w", err)
	}
	u, err := pgx.CollectExactlyOneRow(rows, scanUser)
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("users: %w", err)
	}
	return u, nil
}

// Get returns one user, closed ones included (with their personal fields blank).
func Get(ctx context.Context, pool pgread.Querier, id string) (User, error) {
	return one(ctx, pool, `id = $1`, id)
}

// Join adds another read model's columns to the query of a user's row, so that a page that
// shows both reads them in one round trip (projections/ledger.Joined: the dashboard figures).
// Columns are added to the select list, Join after the users table (whose alias is u), and
// Dest receives the columns.
type Join interface {
	Columns() string
	Join() string
	Dest() []any
}

// GetWith returns one user as Get does, with j's columns read in the same query.
func GetWith(ctx context.Context, pool pgread.Querier, id string, j Join) (User, error) {
	rows, err := pool.Query(ctx, `SELECT `+qualifiedColumns+`, `+j.Columns()+` FROM rm_users.users u `+j.Join()+`
		WHERE u.id = $1 LIMIT 1`, id)
	if err != nil {
		return User{}, fmt.Errorf("users: %w", err)
	}
	u, err := pgx.CollectExactlyOneRow(rows, func(rs pgx.CollectableRow) (User, error) {
		var u User
		err := rs.Scan(append(u.dest(), j.Dest()...)...)
		u.CreatedAt, u.UpdatedAt = u.CreatedAt.UTC(), u.UpdatedAt.UTC()
		return u, err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("users: %w", err)
	}
	return u, nil
}

// ListOptions selects a page of users.
type ListOptions struct {
	Search        string // part of the name or e-mail, any case; "" lists everyone
	Limit         int    // default 50, at most 500
	Offset        int
	IncludeClosed bool // closed accounts have no personal data left; lists leave them out by default
}

const (
	defaultLimit = 50
	maxLimit     = 500
)

// List returns a page of users, newest first, and how many users match in all.
func List(ctx context.Context, pool pgread.Querier, opts ListOptions) ([]User, int, error) {
	limit := opts.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	limit = min(limit, maxLimit)
	search := strings.TrimSpace(opts.Search)
	where := `($1 = '' OR name ILIKE $2 OR email_lower LIKE lower($2)) AND ($3 OR status <> 'closed')`
	args := []any{search, "%" + escapeLike(search) + "%", opts.IncludeClosed}

	var total int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM rm_users.users WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("users: count: %w", err)
	}
	rows, err := pool.Query(ctx, `SELECT `+userColumns+` FROM rm_users.users WHERE `+where+`
		ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`, append(args, limit, max(opts.Offset, 0))...)
	if err != nil {
		return nil, 0, fmt.Errorf("users: list: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanUser)
	if err != nil {
		return nil, 0, fmt.Errorf("users: list: %w", err)
	}
	return list, total, nil
}

// escapeLike makes user input match literally inside a LIKE pattern.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Counts returns how many users have verified their e-mail, how many are suspended, and how many
// there are, closed accounts not counted.
func Counts(ctx context.Context, pool pgread.Querier) (verified, suspended, total int, err error) {
	err = pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE is_verified), count(*) FILTER (WHERE status = 'suspended'), count(*)
		FROM rm_users.users WHERE status <> 'closed'`).Scan(&verified, &suspended, &total)
	if err != nil {
		err = fmt.Errorf("users: counts: %w", err)
	}
	return verified, suspended, total, err
}

// Referral is a user someone referred, as the referrals page shows them.
type Referral struct {
	ID    string `json:"_id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Photo string `json:"photo"`
}

// Referrals lists the users referrerID referred, newest first; closed accounts are left out.
func Referrals(ctx context.Context, pool pgread.Querier, referrerID string) ([]Referral, error) {
	rows, err := pool.Query(ctx, `SELECT id, name, email, photo FROM rm_users.users
		WHERE referred_by = $1 AND status <> 'closed' ORDER BY created_at DESC, id DESC`, referrerID)
	if err != nil {
		return nil, fmt.Errorf("users: referrals: %w", err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Referral])
	if err != nil {
		return nil, fmt.Errorf("users: referrals: %w", err)
	}
	return list, nil
}

// PendingKYC is one identity check waiting for review.
type PendingKYC struct {
	ID          string
	Name        string
	Email       string
	Country     string
	Submission  int
	SubmittedAt time.Time
	Sides       []string
}

// kycQueue is the identity checks waiting for review. Closed accounts are left out: there is
// nothing left to review.
var kycQueue = keyset.Query{
	Select: `id, name, email, country, kyc_submission, kyc_submitted_at, kyc_sides`,
	From:   `FROM rm_users.users`,
	Where:  `kyc_status = 'Pending' AND status <> 'closed'`,
	At:     `kyc_submitted_at`, ID: `id`,
	Count: `SELECT count(*) FROM rm_users.users WHERE kyc_status = 'Pending' AND status <> 'closed'`,
}

// KYCQueuePage lists up to limit identity checks waiting for review, oldest submission first,
// starting after the cursor (from the start when after is nil), with how many wait in all
// (keyset.Fetch).
func KYCQueuePage(ctx context.Context, pool pgread.Querier, after *keyset.Cursor, limit int) (list []PendingKYC, total int, more bool, err error) {
	list, total, more, err = keyset.Fetch(ctx, pool, kycQueue, after, limit, func(rs pgx.CollectableRow, total *int) (PendingKYC, error) {
		var p PendingKYC
		var sides string
		err := rs.Scan(&p.ID, &p.Name, &p.Email, &p.Country, &p.Submission, &p.SubmittedAt, &sides, total)
		p.SubmittedAt = p.SubmittedAt.UTC()
		p.Sides = strings.Split(sides, ",")
		return p, err
	})
	if err != nil {
		return nil, 0, false, fmt.Errorf("users: kyc queue %w", err)
	}
	return list, total, more, nil
}

// KYCRetentionCandidates lists the users whose identity documents a retention run looks at:
// closed accounts and decided checks.
func KYCRetentionCandidates(ctx context.Context, pool pgread.Querier) ([]string, error) {
	rows, err := pool.Query(ctx, `SELECT id FROM rm_users.users
		WHERE kyc_submission > 0 AND (status = 'closed' OR kyc_status IN ('Approved', 'Rejected')) ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("users: kyc retention: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("users: kyc retention: %w", err)
	}
	return ids, nil
}

// Filter narrows the staff user list. Every field is optional ("" for any); closed accounts are
// never listed (nothing personal is left to show).
type Filter struct {
	Search    string // part of the name or e-mail, any case
	Role      string // the role held (subscriber, author, admin), suspended or not
	KYCStatus string // Not Submitted, Pending, Approved or Rejected
	Status    string // active or suspended
}

// staffList is the staff user list, newest first, paged by (created_at, id). Its filter
// arguments are $4 (search), $5 (the search as a LIKE pattern), $6 (role), $7 (KYC status) and
// $8 (status).
var staffList = func() keyset.Query {
	where := `status <> 'closed' AND ($4::text = '' OR name ILIKE $5::text OR email_lower LIKE lower($5::text))
		AND ($6::text = '' OR role = $6::text) AND ($7::text = '' OR kyc_status = $7::text) AND ($8::text = '' OR status = $8::text)`
	return keyset.Query{
		Select: userColumns, From: `FROM rm_users.users`, Where: where,
		At: `created_at`, ID: `id`, NewestFirst: true,
		Count: `SELECT count(*) FROM rm_users.users WHERE ` + where,
	}
}()

// StaffPage lists up to limit users matching f, newest first, starting after the cursor (from
// the start when after is nil), with how many match in all (keyset.Fetch).
func StaffPage(ctx context.Context, pool pgread.Querier, f Filter, after *keyset.Cursor, limit int) (list []User, total int, more bool, err error) {
	search := strings.TrimSpace(f.Search)
	list, total, more, err = keyset.Fetch(ctx, pool, staffList, after, limit, func(rs pgx.CollectableRow, total *int) (User, error) {
		var u User
		err := rs.Scan(append(u.dest(), total)...)
		u.CreatedAt, u.UpdatedAt = u.CreatedAt.UTC(), u.UpdatedAt.UTC()
		return u, err
	}, search, "%"+escapeLike(search)+"%", f.Role, f.KYCStatus, f.Status)
	if err != nil {
		return nil, 0, false, fmt.Errorf("users: staff list: %w", err)
	}
	return list, total, more, nil
}
