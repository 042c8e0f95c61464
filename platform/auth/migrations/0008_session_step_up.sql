-- When the person behind a session last confirmed it was them (their authenticator code, or
-- their password on an account without one). Operations that move money out need it recent;
-- it lives here, on the server, so that nothing the client holds can claim it.
ALTER TABLE sessions ADD COLUMN stepped_up_at timestamptz;
