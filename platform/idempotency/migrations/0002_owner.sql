-- The user a stored response is about, so that closing their account can delete it: a response
-- may hold their personal data (a profile, a sign-in). NULL for responses about nobody.
ALTER TABLE idempotency_keys ADD COLUMN owner uuid;
CREATE INDEX idempotency_keys_owner ON idempotency_keys (owner) WHERE owner IS NOT NULL;
