package accounts

import (
	"context"
	"fmt"

	"clearvest/platform/auth"
	"clearvest/platform/auth/google"
	"clearvest/platform/auth/otp"
	"clearvest/platform/auth/passkey"
	"clearvest/platform/auth/password"
	"clearvest/platform/auth/ratelimit"
	"clearvest/platform/auth/session"
	"clearvest/platform/auth/token"
	"clearvest/platform/auth/totp"
)

// authParts are the credential and session stores, all on the pool. A flow's writes go with
// its events in one round trip, as the statements these stores make (CreateStatements, …).
type authParts struct {
	hasher   *password.Hasher
	tokens   *token.Issuer
	sessions *session.Store
	devices  *session.Devices
	codes    *otp.Codes
	totp     *totp.Store
	limiter  *ratelimit.Limiter
	policy   *ratelimit.Policy
	google   googleVerifier
	// googleOAuth and googleSealer serve the redirect flow; nil when Google is not configured.
	googleOAuth  *google.OAuth
	googleSealer *auth.Sealer
	// guard checks the session and principal behind every authenticated request.
	guard *session.Guard
	// challenges keeps passkey ceremonies' challenges between their two requests.
	challenges *passkey.Challenges
}

func (s *Service) initAuth() error {
	var err error
	if s.hasher == nil {
		s.hasher = password.NewHasher(password.DefaultParams, 0)
	}
	if s.tokens, err = token.NewIssuer(s.clock, s.cfg.SecretKey, s.cfg.PreviousSecretKeys...); err != nil {
		return fmt.Errorf("accounts: %w", err)
	}
	s.sessions = session.New(s.pool, s.clock)
	s.guard = session.NewGuard(s.pool, s.clock, session.WithGuardLogger(s.log))
	s.devices = session.NewDevices(s.pool, s.clock)
	if s.codes, err = otp.New(s.pool, s.clock, s.cfg.SecretKey, s.cfg.PreviousSecretKeys...); err != nil {
		return fmt.Errorf("accounts: %w", err)
	}
	if s.totp, err = totp.New(s.pool, s.clock, s.cfg.SecretKey, s.cfg.PreviousSecretKeys...); err != nil {
		return fmt.Errorf("accounts: %w", err)
	}
	s.challenges = passkey.NewChallenges(s.pool, s.clock)
	s.limiter = ratelimit.New(s.pool, s.clock)
	s.policy = ratelimit.NewPolicy(s.limiter)
	if s.google, err = newGoogleVerifier(s); err != nil {
		return err
	}
	return nil
}

// CheckSecrets fails when something stored needs a secret key that is not configured (see
// totp.Store.CheckSecret), so that serve refuses to start rather than lock those users out.
func (s *Service) CheckSecrets(ctx context.Context) error {
	return s.totp.CheckSecret(ctx)
}

// RotateSecrets seals every authenticator secret with the current secret key and returns how
// many it changed (`clearvest keys rotate`).
func (s *Service) RotateSecrets(ctx context.Context) (int, error) {
	return s.totp.Reseal(ctx)
}
