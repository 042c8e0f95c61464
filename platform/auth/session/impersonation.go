package session

import (
	"time"

	"github.com/google/uuid"

	"clearvest/platform/auth"
)

// ImpersonationLifetime bounds a view-as-user session: it cannot be refreshed, so it ends this
// long after it started however active it is.
const ImpersonationLifetime = 15 * time.Minute

// CreateImpersonationStatement starts the view-as-user session id, started at now: a session of
// userID held by admin adminID, who returns to their own session adminSessionID when it ends. It
// ends at now + ImpersonationLifetime; its refresh token is made and thrown away, so nothing can
// extend it. The statement goes with the view's event in one round trip.
func CreateImpersonationStatement(id, userID, adminID, adminSessionID uuid.UUID, now time.Time, dev Device) (Session, auth.Statement) {
	sess := Session{
		ID: id, UserID: userID, FamilyID: id, CreatedAt: now, LastSeenAt: now,
		ExpiresAt: now.Add(ImpersonationLifetime), IP: truncate(dev.IP), UserAgent: truncate(dev.UserAgent),
		DeviceID: truncate(dev.DeviceID),
	}
	return sess, auth.Statement{SQL: `
		INSERT INTO sessions (id, user_id, refresh_hash, family_id, created_at, last_seen_at, expires_at, ip, user_agent, device_id,
		                      impersonator_id, impersonator_session_id)
		VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9, $10, $11)`,
		Args: []any{sess.ID, userID, auth.HashToken(auth.NewToken()), sess.FamilyID, now, sess.ExpiresAt, sess.IP, sess.UserAgent, sess.DeviceID,
			adminID, adminSessionID}}
}
