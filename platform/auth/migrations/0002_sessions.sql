-- One row per sign-in. The refresh token rotates on every use; the row keeps only the hash of the
-- current one, and the hashes it replaced move to session_rotated_tokens so that a replayed,
-- rotated-out token can be recognised and the whole family revoked.
CREATE TABLE sessions (
    id             uuid        PRIMARY KEY,
    user_id        uuid        NOT NULL,
    refresh_hash   bytea       NOT NULL UNIQUE,
    family_id      uuid        NOT NULL,
    created_at     timestamptz NOT NULL,
    last_seen_at   timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    revoked_at     timestamptz,
    revoked_reason text,
    ip             text        NOT NULL DEFAULT '',
    user_agent     text        NOT NULL DEFAULT '',
    device_id      text        NOT NULL DEFAULT ''
);
CREATE INDEX sessions_user_id ON sessions (user_id);
CREATE INDEX sessions_family_id ON sessions (family_id);

CREATE TABLE session_rotated_tokens (
    refresh_hash bytea       PRIMARY KEY,
    session_id   uuid        NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    rotated_at   timestamptz NOT NULL
);
CREATE INDEX session_rotated_tokens_session_id ON session_rotated_tokens (session_id);

-- The long-lived cookie that lets a known browser skip the e-mailed login code.
CREATE TABLE trusted_devices (
    id           uuid        PRIMARY KEY,
    user_id      uuid        NOT NULL,
    token_hash   bytea       NOT NULL UNIQUE,
    label        text        NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz NOT NULL
);
CREATE INDEX trusted_devices_user_id ON trusted_devices (user_id);
