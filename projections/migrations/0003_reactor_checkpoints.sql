-- One row per reactor (a process manager that turns events into commands, see reactor.go).
-- Unlike a projection's checkpoint it cannot commit with the effect it records: the effect is a
-- command in a transaction of its own. A reactor's commands are idempotent by their cause
-- instead, so an effect that committed before a crash lost its checkpoint is refused on replay.
CREATE TABLE reactor_checkpoints (
    name       text        PRIMARY KEY,
    position   bigint      NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL DEFAULT now()
);
