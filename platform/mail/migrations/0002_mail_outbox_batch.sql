-- A staff e-mail to many people queues one row per recipient under the send's id, so that its
-- progress can be counted and the rows still waiting withdrawn when staff cancel it.
ALTER TABLE mail_outbox ADD COLUMN batch text;
CREATE INDEX mail_outbox_batch ON mail_outbox (batch, status) WHERE batch IS NOT NULL;
