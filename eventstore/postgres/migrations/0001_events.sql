-- The event log. position = (id of the writing transaction << 16) | index within the append.
-- Ordering by transaction id lets readers stop below the oldest transaction still running
-- (pg_snapshot_xmin), so an event can never appear behind a position a reader has passed.
CREATE TABLE events (
    position       bigint      PRIMARY KEY,
    event_id       uuid        NOT NULL UNIQUE,
    stream_id      text        NOT NULL,
    version        bigint      NOT NULL CHECK (version >= 1),
    type           text        NOT NULL,
    schema_version integer     NOT NULL CHECK (schema_version >= 1),
    data           jsonb       NOT NULL,
    metadata       jsonb       NOT NULL,
    recorded_at    timestamptz NOT NULL,
    UNIQUE (stream_id, version)
);

-- One row per stream holds its version; the row lock serialises writers of one stream, so an
-- expected-version check has exactly one winner without relying on unique-violation aborts.
CREATE TABLE streams (
    stream_id text   PRIMARY KEY,
    version   bigint NOT NULL CHECK (version >= 0)
);

-- The log is append-only: rows are never updated or deleted, whatever the application does.
CREATE FUNCTION events_are_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are immutable (% refused)', TG_OP;
END;
$$;
CREATE TRIGGER events_immutable BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_are_immutable();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_are_immutable();
