// Package auth holds credentials and sessions: everything about proving who someone is and
// keeping them safely signed in, in ordinary PostgreSQL tables beside the event log (see
// docs/identity.md). This package has what its sub-packages share — the table migrations, key
// derivation, token hashing and sealing — and the sub-packages one concern each:
//
//	password   argon2id hashing with a concurrency cap, the new-password policy
//	token      access tokens (JWT, HS256) with rotating keys
//	principal  role and status per user, e-mail uniqueness, password hashes
//	session    refresh sessions with rotation and reuse detection; trusted devices
//	otp        e-mailed one-time codes and links
//	totp       authenticator-app codes and recovery codes
//	ratelimit  attempt counters shared by all processes; the sign-in policy
//	google     Google ID token verification, PKCE and state
//
// # Threat model
//
// Passwords are chosen by people, so they are guessable: a stolen credentials table must be
// expensive to search. argon2id is memory-hard, which takes away most of a GPU's advantage;
// the parameters (19 MiB, 2 passes) are OWASP's floor and travel in each PHC string, so they
// can be raised and old hashes upgraded at the next login. Every hash holds its memory while
// it runs, so a semaphore caps how many run at once: a login flood queues instead of
// exhausting memory. Unknown accounts still pay for a hash (DummyVerify), so response time
// does not reveal which e-mail addresses are registered.
//
// Everything else we hand out is random: refresh tokens, device cookies, links carry 256 bits.
// Nobody can enumerate 2^256 values, so a single SHA-256 at rest is as strong as argon2 would
// be, at a microsecond per request instead of tens of milliseconds; what the hash buys is that
// a copy of the database contains no usable token. The exception is the 6-digit login code:
// with a million values, any unkeyed hash is reversed instantly, so codes are stored as an
// HMAC under a key derived from the application secret, and they die after five wrong guesses.
//
// Keys are derived from the one application secret with HKDF, a separate key per purpose
// (token signing, code hashing, TOTP sealing), so a key exposed in one role is useless in
// another. Each consumer also accepts keys from previous secrets, so the secret can be rotated
// without signing everyone out.
//
// Access tokens are stateless and short-lived (15 minutes), and they are never enough on their
// own: every request is also checked against the session row and the principal row. A JWT
// cannot be recalled, so without that check signing out, "sign out everywhere", a demotion or
// a suspension would wait for the token to expire. The principal row is written in the same
// transaction as the events that change it, and read from the write side rather than a
// projection, because a projection lags and a suspended user must be out on the next request.
// The check is answered from memory (session.Guard) only while every change to those rows is
// heard: triggers announce each one on a channel that every process listens on, in the
// transaction that makes it, and a process that cannot prove its listener current reads the
// rows again.
//
// Refresh tokens rotate on every use and the rotated-out hashes are kept. A stolen refresh
// token then has two users, the thief and the victim, and whichever refreshes second presents
// a token that was already rotated: that reuse is the signal, and the whole session family is
// revoked so that only someone who can sign in again (the real user) gets back in. A reuse
// seconds after its rotation is taken for two browser tabs racing and only refused, so that
// ordinary use does not sign people out.
//
// Limits on attempts live in PostgreSQL, shared by every process, keyed by the account as typed
// (whether or not it exists) and by source address: per address to stop spraying across
// accounts, per account with exponential back-off and an hourly cap to stop a botnet working
// one account. Keys are hashed so the table does not list who tried to sign in.
package auth
