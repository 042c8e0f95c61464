-- enabled_at is NULL while an enrolment awaits its first code. last_step is the last time step
-- accepted, so a code seen by a shoulder-surfer or a phishing proxy cannot be used twice.
CREATE TABLE totp (
    user_id         uuid        PRIMARY KEY,
    secret_sealed   bytea       NOT NULL,
    enabled_at      timestamptz,
    recovery_hashes text[]      NOT NULL DEFAULT '{}',
    last_step       bigint      NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL
);
