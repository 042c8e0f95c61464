-- A login code belongs to the sign-in attempt that passed the password: attempt_hash is the
-- SHA-256 of the pending-login token that browser holds (a random 256-bit value, so a plain hash
-- is enough). Codes of other purposes have none.
ALTER TABLE one_time_codes ADD COLUMN attempt_hash bytea;
