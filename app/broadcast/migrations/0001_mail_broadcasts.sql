-- One row per staff e-mail, written in the transaction of its broadcast.started event (and
-- updated in that of broadcast.cancelled): the list of past sends and the count behind the
-- per-author limit. Progress is counted from the outbox rows of the batch (mail_outbox.batch).
CREATE TABLE mail_broadcasts (
    id               uuid        PRIMARY KEY,
    author_id        text        NOT NULL,
    audience_kind    text        NOT NULL,
    audience_role    text        NOT NULL DEFAULT '',
    audience_user_id text        NOT NULL DEFAULT '',
    template         text        NOT NULL DEFAULT '',
    subject          text        NOT NULL,
    recipients       integer     NOT NULL,
    created_at       timestamptz NOT NULL,
    cancelled_at     timestamptz,
    cancelled_by     text,
    withdrawn        integer     NOT NULL DEFAULT 0
);
CREATE INDEX mail_broadcasts_newest ON mail_broadcasts (created_at DESC, id DESC);
