-- Proposals by id, so that an approval or a rejection finds the proposal's stream without
-- waiting for a read model. Written in the transaction of the proposal.opened event.
CREATE TABLE approval_refs (
    proposal_id text        PRIMARY KEY,
    stream_id   text        NOT NULL,
    created_at  timestamptz NOT NULL
);
