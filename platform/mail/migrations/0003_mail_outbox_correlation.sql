-- The correlation id of what queued a message (the HTTP request, or the job's item): the
-- sender's log lines name it, so a request can be followed to the e-mail it sent.
ALTER TABLE mail_outbox ADD COLUMN correlation_id text;
