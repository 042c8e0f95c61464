-- The deposit address each investor was given per network, written in the transaction that
-- records chain.address_assigned (the event is the record; this is the write side's index).
-- The unique keys make an index, an address and an investor's address per network one each;
-- the address index answers the chain watcher's "whose addresses are these?" per block.
CREATE TABLE chain_addresses (
    network    text        NOT NULL,
    user_id    text        NOT NULL,
    idx        bigint      NOT NULL CHECK (idx >= 0),
    address    text        NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (network, user_id),
    UNIQUE (network, idx)
);
CREATE UNIQUE INDEX chain_addresses_address ON chain_addresses (network, lower(address));
