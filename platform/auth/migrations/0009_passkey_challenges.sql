-- The challenges of passkey ceremonies between their two requests: what the server asked the
-- authenticator to sign, for whom, and at which relying party. A row is taken (deleted) by the
-- ceremony's second request, so each challenge answers once; expired rows are deleted as new
-- ones are made. Only the SHA-256 of the id the client holds is kept.
CREATE TABLE passkey_challenges (
    id_hash    bytea PRIMARY KEY,
    purpose    text NOT NULL,
    user_id    uuid,
    session_id uuid,
    rp_id      text NOT NULL,
    origin     text NOT NULL,
    data       jsonb NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX passkey_challenges_expires ON passkey_challenges (expires_at);
