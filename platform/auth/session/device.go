package session

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"clearvest/domain/clock"
	"clearvest/platform/auth"
)

const (
	// DeviceLifetime is how long a browser stays trusted after the user confirmed it with an
	// e-mailed code; it matches the cv_device cookie's 400 days (the most browsers allow).
	DeviceLifetime = 400 * 24 * time.Hour
	// maxDevices bounds the trusted browsers kept per user; the least recently used go first.
	maxDevices = 20
)

// Devices remembers browsers a user has confirmed, so that signing in from them does not need
// an e-mailed code each time. The cookie holds a random token; only its hash is stored, so the
// table alone cannot be turned into working cookies.
type Devices struct {
	db    auth.DB
	clock clock.Clock
}

// NewDevices returns the trusted-device store on db.
func NewDevices(db auth.DB, c clock.Clock) *Devices { return &Devices{db: db, clock: c} }

// TrustStatements remembers a browser for a user: the token for its cv_device cookie, and the
// statements (the browser's row, the pruning of the user's oldest) the flow sends with its
// events in one round trip.
func (d *Devices) TrustStatements(userID uuid.UUID, label string) (string, []auth.Statement) {
	now := d.clock.Now()
	token := auth.NewToken()
	return token, []auth.Statement{
		{SQL: `INSERT INTO trusted_devices (id, user_id, token_hash, label, created_at, last_used_at) VALUES ($1, $2, $3, $4, $5, $5)`,
			Args: []any{uuid.Must(uuid.NewV7()), userID, auth.HashToken(token), truncate(label), now}},
		{SQL: `DELETE FROM trusted_devices WHERE user_id = $1 AND (created_at <= $2 OR id NOT IN (
			SELECT id FROM trusted_devices WHERE user_id = $1 ORDER BY last_used_at DESC, id DESC LIMIT $3))`,
			Args: []any{userID, now.Add(-DeviceLifetime), maxDevices}},
	}
}

// IsTrusted reports whether cookieToken is a live trusted-device token of userID. A token of
// another user does not count: the cookie is per browser, not per account.
func (d *Devices) IsTrusted(ctx context.Context, userID uuid.UUID, cookieToken string) (bool, error) {
	if cookieToken == "" {
		return false, nil
	}
	now := d.clock.Now()
	tag, err := d.db.Exec(ctx, `UPDATE trusted_devices SET last_used_at = $4
		WHERE token_hash = $1 AND user_id = $2 AND created_at > $3`,
		auth.HashToken(cookieToken), userID, now.Add(-DeviceLifetime), now)
	if err != nil {
		return false, fmt.Errorf("session: check device: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// ForgetAllStatement distrusts every browser of a user (password reset, "this wasn't me").
func ForgetAllStatement(userID uuid.UUID) auth.Statement {
	return auth.Statement{SQL: `DELETE FROM trusted_devices WHERE user_id = $1`, Args: []any{userID}}
}

// DeviceLabel describes a user agent in a few words ("Chrome on Windows") for lists and
// e-mails. It is a guess from a header the client controls, shown to the user, never trusted.
func DeviceLabel(userAgent string) string {
	ua := userAgent
	browser := ""
	switch {
	case strings.Contains(ua, "Edg/") || strings.Contains(ua, "EdgA/") || strings.Contains(ua, "EdgiOS/"):
		browser = "Edge"
	case strings.Contains(ua, "OPR/") || strings.Contains(ua, "Opera"):
		browser = "Opera"
	case strings.Contains(ua, "Firefox/") || strings.Contains(ua, "FxiOS/"):
		browser = "Firefox"
	case strings.Contains(ua, "Chrome/") || strings.Contains(ua, "CriOS/"):
		browser = "Chrome"
	case strings.Contains(ua, "Safari/"):
		browser = "Safari"
	}
	os := ""
	switch {
	case strings.Contains(ua, "iPhone"):
		os = "iPhone"
	case strings.Contains(ua, "iPad"):
		os = "iPad"
	case strings.Contains(ua, "Android"):
		os = "Android"
	case strings.Contains(ua, "Windows"):
		os = "Windows"
	case strings.Contains(ua, "Mac OS X") || strings.Contains(ua, "Macintosh"):
		os = "macOS"
	case strings.Contains(ua, "CrOS"):
		os = "ChromeOS"
	case strings.Contains(ua, "Linux"):
		os = "Linux"
	}
	switch {
	case browser != "" && os != "":
		return browser + " on " + os
	case browser != "":
		return browser
	case os != "":
		return os
	}
	return "Unknown device"
}
