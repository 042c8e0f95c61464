-- Which account a withdrawal is on, written in the transaction that requests it, so a decision
-- finds the stream without waiting for a read model.
CREATE TABLE money_withdrawal_refs (
    withdrawal_id text        PRIMARY KEY,
    user_id       text        NOT NULL,
    created_at    timestamptz NOT NULL
);
