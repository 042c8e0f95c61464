-- E-mailed codes and links. Only a keyed hash is stored, so a copy of the database does not let
-- anyone sign in or reset a password; a row is spent by setting used_at, and a login code is
-- burnt once attempts reaches the limit.
CREATE TABLE one_time_codes (
    id         uuid        PRIMARY KEY,
    user_id    uuid        NOT NULL,
    purpose    text        NOT NULL CHECK (purpose IN ('login', 'verify_email', 'reset_password', 'wasnt_me', 'link_google')),
    code_hash  bytea       NOT NULL,
    expires_at timestamptz NOT NULL,
    attempts   integer     NOT NULL DEFAULT 0,
    used_at    timestamptz,
    created_at timestamptz NOT NULL
);
CREATE INDEX one_time_codes_user_purpose ON one_time_codes (user_id, purpose, created_at DESC);
CREATE INDEX one_time_codes_code_hash ON one_time_codes (code_hash);
