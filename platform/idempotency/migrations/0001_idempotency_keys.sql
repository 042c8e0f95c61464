-- The answers to requests sent with an Idempotency-Key (api/idempotency). A row is claimed when
-- the first request with a key starts (token, locked_until), and holds its sealed response once
-- it has finished; answers the server failed to give (5xx) delete it, so a retry runs again.
-- Neither the caller nor the key is stored as given: id is a SHA-256 of both, request_hash one
-- of the request.
CREATE TABLE idempotency_keys (
    id           bytea       PRIMARY KEY,
    request_hash bytea       NOT NULL,
    token        uuid        NOT NULL,
    locked_until timestamptz,
    response     bytea,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);

CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);
