-- Every transfer the chain watcher recorded, by its network and transaction hash: whose address
-- it paid and the deposit it is credited on. A deposit another investor declared for the same
-- transaction is then refused by hand (the money went to the address's owner), and a deposit
-- the same investor declared is the one the transfer was linked to (docs/chain.md, "Declared
-- and detected deposits").
CREATE TABLE money_chain_sightings (
    network    text        NOT NULL,
    tx_hash    text        NOT NULL,
    user_id    text        NOT NULL,
    deposit_id text        NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (network, tx_hash, deposit_id)
);
