-- definition_version is the version of the projection definition that built the read model
-- (Versioned.Version; 1 for projections that never declared one). A process that knows an older
-- version never writes to it.
ALTER TABLE projection_checkpoints ADD COLUMN definition_version integer NOT NULL DEFAULT 1;

-- A projection whose Apply refused an event is parked: its checkpoint stays just before the event
-- and the runner applies nothing to it until an operator asks for a retry (retry_requested_at) or
-- skips the event. One row per projection; it is deleted once the checkpoint passes position.
CREATE TABLE projection_failures (
    name               text        PRIMARY KEY REFERENCES projection_checkpoints (name) ON DELETE CASCADE,
    position           bigint      NOT NULL,
    event_id           uuid        NOT NULL,
    event_type         text        NOT NULL,
    stream_id          text        NOT NULL,
    error              text        NOT NULL,
    attempts           integer     NOT NULL,
    first_failed_at    timestamptz NOT NULL,
    failed_at          timestamptz NOT NULL,
    retry_requested_at timestamptz,
    retry_requested_by text
);

-- Events an operator told a projection to pass without applying, with the reason and who decided.
-- Live runners and rebuilds both pass them, so a rebuilt read model equals the live one. Rows are
-- kept as the record of the decision.
CREATE TABLE projection_skips (
    name       text        NOT NULL,
    position   bigint      NOT NULL,
    event_id   uuid        NOT NULL,
    event_type text        NOT NULL,
    stream_id  text        NOT NULL,
    reason     text        NOT NULL CHECK (btrim(reason) <> ''),
    skipped_by text        NOT NULL CHECK (btrim(skipped_by) <> ''),
    skipped_at timestamptz NOT NULL DEFAULT now(),
    error      text,
    -- the live read model had applied the event before the skip: only rebuilds pass it
    already_applied boolean NOT NULL DEFAULT false,
    PRIMARY KEY (name, position)
);
