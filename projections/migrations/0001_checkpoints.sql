-- One row per projection. position is the global position of the last event applied to the live
-- read model; it is written in the same transaction as the read-model rows, so an event's effect
-- and the checkpoint that records it commit together or not at all.
CREATE TABLE projection_checkpoints (
    name           text        PRIMARY KEY,
    position       bigint      NOT NULL DEFAULT 0,
    schema_hash    text        NOT NULL,
    events_applied bigint      NOT NULL DEFAULT 0,
    last_event_at  timestamptz,
    updated_at     timestamptz NOT NULL DEFAULT now()
);
