-- Deposits by their human-friendly transaction id, so staff and the owner can find the account
-- a deposit lives in, and the on-chain transaction hashes already claimed. Both are written in
-- the transaction of the account.deposit_requested event: a primary key is the only guard that
-- holds under concurrent requests, which is why they live here and not in a read model.
CREATE TABLE money_deposit_refs (
    transaction_id text        PRIMARY KEY,
    user_id        text        NOT NULL,
    deposit_id     text        NOT NULL,
    created_at     timestamptz NOT NULL
);

-- A transaction hash may be used once across the platform, ignoring case (hex hashes are
-- written either way).
CREATE TABLE money_tx_hashes (
    tx_hash_key    text        PRIMARY KEY,
    transaction_id text        NOT NULL,
    created_at     timestamptz NOT NULL
);
