-- The transactional outbox: a message is inserted in the same transaction as the fact that causes
-- it and sent afterwards by whichever process claims it first.
CREATE TABLE mail_outbox (
    id               uuid        PRIMARY KEY,
    -- The causing event and template; a second insert with the same key is ignored, so a
    -- retried command never mails twice.
    dedupe_key       text        NOT NULL UNIQUE,
    to_address       text        NOT NULL,
    subject          text        NOT NULL,
    text_body        text        NOT NULL,
    html_body        text        NOT NULL DEFAULT '',
    headers          jsonb       NOT NULL DEFAULT '{}',
    status           text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
    attempts         integer     NOT NULL DEFAULT 0,
    -- When the row may next be claimed: the retry time, or the end of a claim's lease while a
    -- sender works on it, so that a sender that dies mid-send only delays the message.
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    -- The token of the claim being worked on; the sender's final update must present it, so a
    -- sender whose lease ran out cannot overwrite the outcome of the one that took over.
    claim            uuid,
    last_error       text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    sent_at          timestamptz,
    -- Bodies holding one-time links are blanked once sent (or given up), so that the database
    -- does not keep working credentials for other people's accounts.
    scrub_after_send boolean     NOT NULL DEFAULT false,
    CHECK ((status = 'sent') = (sent_at IS NOT NULL))
);

-- What the senders poll: only pending rows, in due order.
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE status = 'pending';
