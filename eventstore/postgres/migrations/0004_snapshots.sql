-- Snapshots of long streams' aggregate state (eventstore.Snapshot): one per stream, the latest.
-- A cache beside the log, never part of it: rows may be replaced or deleted at any time, and a
-- loader that cannot use one reads the stream's events instead.
CREATE TABLE snapshots (
    stream_id text        PRIMARY KEY,
    version   bigint      NOT NULL CHECK (version >= 1),
    position  bigint      NOT NULL, -- of the stream's event at version
    kind      text        NOT NULL,
    started   timestamptz NOT NULL,
    state     bytea       NOT NULL,
    keys      bytea       NOT NULL,
    saved_at  timestamptz NOT NULL DEFAULT now()
);
