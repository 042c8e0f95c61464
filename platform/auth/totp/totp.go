// Package totp is two-factor sign-in with an authenticator app (RFC 6238: HMAC-SHA-1, 30-second
// steps, 6 digits), plus single-use recovery codes for a lost phone.
//
// The shared secret is sealed at rest (AES-GCM, key derived from the application secret, bound
// to the user id), because unlike a password it cannot be hashed: the server must compute codes
// from it. Each accepted step is remembered, so a code read over a shoulder or relayed by a
// phishing page cannot be replayed within its window. Guessing is bounded by the caller's rate
// limits (a 6-digit code with ±1 step has 3 chances in a million per guess).
package totp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"rsc.io/qr"

	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/platform/auth"
)

const (
	// Period is the time step.
	Period = 30
	// Digits is the code length.
	Digits = 6
	// Skew is how many steps either side of now are accepted, for phones whose clocks drift and
	// users who type slowly.
	Skew = 1
	// RecoveryCodeCount is how many recovery codes an enrolment hands out.
	RecoveryCodeCount = 10
	// Issuer names the account in authenticator apps.
	Issuer = "Clearvest"

	secretSize = 20 // 160 bits, as RFC 4226 recommends
	sealInfo   = "clearvest totp secret v1"
)

var (
	// ErrInvalidCode: at sign-in, the code (or recovery code) is wrong or already used.
	ErrInvalidCode = domainerr.New(domainerr.Unauthenticated, "Invalid authentication code")
	// ErrConfirmCode: while setting up, the first code did not match. It is a 400, not a 401,
	// so a signed-in user is not treated as signed out.
	ErrConfirmCode = domainerr.New(domainerr.Invalid, "That code didn't match. Check your authenticator app and try again.")
	// ErrAlreadyEnabled: two-factor sign-in is on; disable it before enrolling again.
	ErrAlreadyEnabled = domainerr.New(domainerr.Conflict, "Two-factor authentication is already on.")
	// ErrNotEnrolling: Confirm without a Begin.
	ErrNotEnrolling = domainerr.New(domainerr.Invalid, "Start two-factor setup first.")
	// ErrNotEnabled: Verify for a user without two-factor sign-in.
	ErrNotEnabled = domainerr.New(domainerr.Invalid, "Two-factor authentication is not on.")
)

// Enrollment is what the set-up page shows: the secret for manual entry, the otpauth:// URL,
// and that URL as a QR code (a PNG data URL, usable directly as an img src).
type Enrollment struct {
	Secret string
	URL    string
	QRCode string
}

// Store keeps TOTP enrolments.
type Store struct {
	db     auth.DB
	clock  clock.Clock
	sealer *auth.Sealer
}

// New returns the TOTP store on db, sealing secrets with keys derived from the application
// secrets (current first).
func New(db auth.DB, c clock.Clock, secret []byte, previous ...[]byte) (*Store, error) {
	sealer, err := auth.NewSealer(sealInfo, secret, previous...)
	if err != nil {
		return nil, fmt.Errorf("totp: %w", err)
	}
	return &Store{db: db, clock: c, sealer: sealer}, nil
}

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// Begin starts (or restarts) enrolment: a new secret is stored, not yet enabled, until Confirm
// proves the user's app has it. account labels the entry in the app (the e-mail address).
func (s *Store) Begin(ctx context.Context, userID uuid.UUID, account string) (Enrollment, error) {
	secret := make([]byte, secretSize)
	_, _ = rand.Read(secret)
	tag, err := s.db.Exec(ctx, `
		INSERT INTO totp (user_id, secret_sealed, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (user_id) DO UPDATE SET secret_sealed = excluded.secret_sealed, created_at = excluded.created_at,
			recovery_hashes = '{}', last_step = 0
		WHERE totp.enabled_at IS NULL`,
		userID, s.sealer.Seal(secret, userID[:]), s.clock.Now())
	if err != nil {
		return Enrollment{}, fmt.Errorf("totp: begin: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return Enrollment{}, ErrAlreadyEnabled
	}
	e := Enrollment{Secret: b32.EncodeToString(secret)}
	q := url.Values{}
	q.Set("secret", e.Secret)
	q.Set("issuer", Issuer)
	q.Set("algorithm", "SHA1")
	q.Set("digits", fmt.Sprint(Digits))
	q.Set("period", fmt.Sprint(Period))
	e.URL = (&url.URL{Scheme: "otpauth", Host: "totp", Path: "/" + Issuer + ":" + account, RawQuery: q.Encode()}).String()
	code, err := qr.Encode(e.URL, qr.M)
	if err != nil {
		return Enrollment{}, fmt.Errorf("totp: qr code: %w", err)
	}
	e.QRCode = "data:image/png;base64," + base64.StdEncoding.EncodeToString(code.PNG())
	return e, nil
}

type row struct {
	secret   []byte
	enabled  bool
	lastStep int64
	recovery []string
}

// load reads and locks a user's row inside tx.
func (s *Store) load(ctx context.Context, tx pgx.Tx, userID uuid.UUID) (row, bool, error) {
	var r row
	var sealed []byte
	var enabledAt *time.Time
	err := tx.QueryRow(ctx, `SELECT secret_sealed, enabled_at, last_step, recovery_hashes FROM totp WHERE user_id = $1 FOR UPDATE`, userID).
		Scan(&sealed, &enabledAt, &r.lastStep, &r.recovery)
	if errors.Is(err, pgx.ErrNoRows) {
		return row{}, false, nil
	}
	if err != nil {
		return row{}, false, err
	}
	if r.secret, err = s.sealer.Open(sealed, userID[:]); err != nil {
		return row{}, false, err
	}
	r.enabled = enabledAt != nil
	return r, true, nil
}

// Confirm checks the first code from the user's app, turns two-factor sign-in on, and returns
// the recovery codes, shown once and stored only as hashes.
func (s *Store) Confirm(ctx context.Context, userID uuid.UUID, code string) ([]string, error) {
	codes, st, err := s.ConfirmStatement(ctx, userID, code)
	if err != nil {
		return nil, err
	}
	err = auth.Exec(ctx, s.db, st)
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.ConstraintName == EnrolmentChangedConstraint {
		return nil, ErrNotEnrolling
	}
	if err != nil {
		return nil, fmt.Errorf("totp: confirm: %w", err)
	}
	return codes, nil
}

// EnrolmentChangedConstraint is what the violation of ConfirmStatement's statement names when
// the enrolment changed after its code was checked.
const EnrolmentChangedConstraint = "totp_enrolment_changed"

// ConfirmStatement is Confirm as a statement (auth migration 0014), for a flow that sends it
// with its event in one round trip: it checks the code against the enrolment as it reads it,
// and returns the recovery codes and the statement that turns sign-in with the app on, which
// fails with a check violation of EnrolmentChangedConstraint should the enrolment change first.
func (s *Store) ConfirmStatement(ctx context.Context, userID uuid.UUID, code string) ([]string, auth.Statement, error) {
	now := s.clock.Now()
	var sealed []byte
	var enabledAt *time.Time
	var lastStep int64
	err := s.db.QueryRow(ctx, `SELECT secret_sealed, enabled_at, last_step FROM totp WHERE user_id = $1`, userID).
		Scan(&sealed, &enabledAt, &lastStep)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, auth.Statement{}, ErrNotEnrolling
	}
	if err != nil {
		return nil, auth.Statement{}, fmt.Errorf("totp: confirm: %w", err)
	}
	if enabledAt != nil {
		return nil, auth.Statement{}, ErrAlreadyEnabled
	}
	secret, err := s.sealer.Open(sealed, userID[:])
	if err != nil {
		return nil, auth.Statement{}, fmt.Errorf("totp: confirm: %w", err)
	}
	step, ok := match(secret, code, now, lastStep)
	if !ok {
		return nil, auth.Statement{}, ErrConfirmCode
	}
	codes, hashes := newRecoveryCodes()
	return codes, auth.Statement{SQL: `SELECT totp_confirm($1, $2, $3, $4, $5)`, Args: []any{userID, sealed, now, step, hashes}}, nil
}

// Verify checks a sign-in code: a current TOTP code, or one of the recovery codes, which is
// then spent. usedRecovery tells the caller to suggest generating new recovery codes.
func (s *Store) Verify(ctx context.Context, userID uuid.UUID, code string) (usedRecovery bool, err error) {
	now := s.clock.Now()
	var outcome error
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		r, ok, err := s.load(ctx, tx, userID)
		if err != nil {
			return err
		}
		if !ok || !r.enabled {
			outcome = ErrNotEnabled
			return nil
		}
		if isTOTP(code) {
			step, ok := match(r.secret, code, now, r.lastStep)
			if !ok {
				outcome = ErrInvalidCode
				return nil
			}
			_, err := tx.Exec(ctx, `UPDATE totp SET last_step = $2 WHERE user_id = $1`, userID, step)
			return err
		}
		h := hashRecovery(code)
		found := 0
		for _, stored := range r.recovery {
			found |= subtle.ConstantTimeCompare([]byte(stored), []byte(h))
		}
		if found == 0 {
			outcome = ErrInvalidCode
			return nil
		}
		usedRecovery = true
		_, err = tx.Exec(ctx, `UPDATE totp SET recovery_hashes = array_remove(recovery_hashes, $2) WHERE user_id = $1`, userID, h)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("totp: verify: %w", err)
	}
	if outcome != nil {
		return false, outcome
	}
	return usedRecovery, nil
}

// Enabled reports whether a user has two-factor sign-in on.
func (s *Store) Enabled(ctx context.Context, userID uuid.UUID) (bool, error) {
	var on bool
	err := s.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM totp WHERE user_id = $1 AND enabled_at IS NOT NULL)`, userID).Scan(&on)
	if err != nil {
		return false, fmt.Errorf("totp: enabled: %w", err)
	}
	return on, nil
}

// RecoveryCodesLeft counts a user's unused recovery codes.
func (s *Store) RecoveryCodesLeft(ctx context.Context, userID uuid.UUID) (int, error) {
	var n int
	err := s.db.QueryRow(ctx, `SELECT coalesce((SELECT cardinality(recovery_hashes) FROM totp WHERE user_id = $1 AND enabled_at IS NOT NULL), 0)`, userID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("totp: recovery codes: %w", err)
	}
	return n, nil
}

// RegenerateRecoveryCodes replaces a user's recovery codes with a fresh set.
func (s *Store) RegenerateRecoveryCodes(ctx context.Context, userID uuid.UUID) ([]string, error) {
	codes, hashes := newRecoveryCodes()
	tag, err := s.db.Exec(ctx, `UPDATE totp SET recovery_hashes = $2 WHERE user_id = $1 AND enabled_at IS NOT NULL`, userID, hashes)
	if err != nil {
		return nil, fmt.Errorf("totp: regenerate: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return nil, ErrNotEnabled
	}
	return codes, nil
}

// ForgetStatement deletes a user's enrolment, enabled or not: two-factor sign-in turned off
// (the caller re-authenticated the user first), or the account closed.
func ForgetStatement(userID uuid.UUID) auth.Statement {
	return auth.Statement{SQL: `DELETE FROM totp WHERE user_id = $1`, Args: []any{userID}}
}

// ErrWrongSecret: a stored secret is sealed with an application secret that is not configured.
var ErrWrongSecret = errors.New("totp: authenticator secrets are sealed with a secret key that is not configured")

// CheckSecret fails with ErrWrongSecret when some stored secret needs an application secret that
// is not configured (CLEARVEST_SECRET_KEY changed without the old value in
// CLEARVEST_SECRET_KEY_PREVIOUS, or the old value removed before Reseal ran), so that start-up
// fails instead of those users' sign-ins.
func (s *Store) CheckSecret(ctx context.Context) error {
	var unknown int
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM totp WHERE substring(secret_sealed FROM 2 FOR 4) <> ALL($1::bytea[])`,
		s.sealer.KeyIDs()).Scan(&unknown); err != nil {
		return fmt.Errorf("totp: check secret: %w", err)
	}
	if unknown > 0 {
		return fmt.Errorf("%w (%d of them); put the old key in CLEARVEST_SECRET_KEY_PREVIOUS until `clearvest keys rotate` has run", ErrWrongSecret, unknown)
	}
	return nil
}

// resealBatch bounds the rows one query of Reseal reads.
const resealBatch = 1000

// Reseal seals every stored secret with the current application secret and returns how many it
// changed. It may run while users sign in (a row is replaced only if it did not change meanwhile,
// so a new enrolment or a disable in between stays as it is) and may run again.
func (s *Store) Reseal(ctx context.Context) (int, error) {
	resealed := 0
	for after := uuid.Nil; ; {
		rows, err := s.db.Query(ctx, `SELECT user_id, secret_sealed FROM totp WHERE user_id > $1 ORDER BY user_id LIMIT $2`, after, resealBatch)
		if err != nil {
			return resealed, fmt.Errorf("totp: reseal: %w", err)
		}
		type row struct {
			user   uuid.UUID
			sealed []byte
		}
		batch, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
			var x row
			return x, r.Scan(&x.user, &x.sealed)
		})
		if err != nil {
			return resealed, fmt.Errorf("totp: reseal: %w", err)
		}
		var users []uuid.UUID
		var old, next [][]byte
		for _, r := range batch {
			after = r.user
			if s.sealer.SealedWithCurrent(r.sealed) {
				continue
			}
			resealedValue, err := s.sealer.Reseal(r.sealed, r.user[:])
			if err != nil {
				return resealed, fmt.Errorf("%w: user %s: %v", ErrWrongSecret, r.user, err)
			}
			users, old, next = append(users, r.user), append(old, r.sealed), append(next, resealedValue)
		}
		if len(users) > 0 {
			tag, err := s.db.Exec(ctx, `UPDATE totp t SET secret_sealed = u.next
				FROM unnest($1::uuid[], $2::bytea[], $3::bytea[]) AS u(user_id, old, next)
				WHERE t.user_id = u.user_id AND t.secret_sealed = u.old`, users, old, next)
			if err != nil {
				return resealed, fmt.Errorf("totp: reseal: %w", err)
			}
			resealed += int(tag.RowsAffected())
		}
		if len(batch) < resealBatch {
			return resealed, nil
		}
	}
}

// generate is RFC 4226's HOTP at counter step, truncated to digits.
func generate(secret []byte, step int64, digits int) string {
	m := hmac.New(sha1.New, secret)
	_ = binary.Write(m, binary.BigEndian, step)
	sum := m.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	v := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	mod := uint32(1)
	for range digits {
		mod *= 10
	}
	return fmt.Sprintf("%0*d", digits, v%mod)
}

// match finds the step within Skew of now whose code is code and which is later than the last
// step used, comparing every candidate in constant time.
func match(secret []byte, code string, now time.Time, lastStep int64) (int64, bool) {
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	if !isTOTP(code) {
		return 0, false
	}
	current := now.Unix() / Period
	var found int64
	for step := current - Skew; step <= current+Skew; step++ {
		if subtle.ConstantTimeCompare([]byte(generate(secret, step, Digits)), []byte(code)) == 1 && step > lastStep {
			found = step
		}
	}
	return found, found != 0
}

func isTOTP(code string) bool {
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	if len(code) != Digits {
		return false
	}
	for _, r := range code {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

var recoveryAlphabet = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newRecoveryCodes returns codes of 80 random bits, written xxxx-xxxx-xxxx-xxxx, and their
// hashes. With that much entropy a fast hash at rest is enough, and no secret key is involved,
// so rotating the application secret never invalidates codes a user has printed.
func newRecoveryCodes() (codes, hashes []string) {
	for range RecoveryCodeCount {
		b := make([]byte, 10)
		_, _ = rand.Read(b)
		raw := recoveryAlphabet.EncodeToString(b)
		codes = append(codes, raw[0:4]+"-"+raw[4:8]+"-"+raw[8:12]+"-"+raw[12:16])
		hashes = append(hashes, hashRecovery(raw))
	}
	return codes, hashes
}

// hashRecovery normalises what the user typed (case, dashes, spaces) before hashing.
func hashRecovery(code string) string {
	norm := strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' {
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(code)))
	sum := sha256.Sum256([]byte(norm))
	return hex.EncodeToString(sum[:])
}

// Code returns the code an authenticator app shows at t for a base32 secret (as in an
// Enrollment). The application does not need it; tests and tooling that play the user do.
func Code(secret string, t time.Time) (string, error) {
	key, err := b32.DecodeString(strings.ToUpper(strings.TrimRight(secret, "=")))
	if err != nil {
		return "", fmt.Errorf("totp: secret: %w", err)
	}
	return generate(key, t.Unix()/Period, Digits), nil
}
