-- Where each network's watcher stands: the last block fully processed (height and hash), the
-- lease that normally lets one process work the network at a time, and its health as last seen.
CREATE TABLE chain_cursors (
    network       text        PRIMARY KEY,
    height        bigint      NOT NULL,
    hash          text        NOT NULL,
    lease_owner   text        NOT NULL DEFAULT '',
    lease_until   timestamptz NOT NULL DEFAULT 'epoch',
    tip           bigint      NOT NULL DEFAULT 0,
    last_success  timestamptz,
    last_error    text        NOT NULL DEFAULT '',
    last_error_at timestamptz,
    updated_at    timestamptz NOT NULL
);

-- The hashes of the recent blocks processed, to find the fork point of a reorganisation.
CREATE TABLE chain_blocks (
    network text   NOT NULL,
    height  bigint NOT NULL,
    hash    text   NOT NULL,
    PRIMARY KEY (network, height)
);

-- Every transfer to an investor's address the watcher saw, where it stands (detected, credited,
-- dropped, orphaned) and whether its pending deposit is recorded yet (it waits for a rate). The
-- events on the transfer's stream are the record; this is the working index the job pages
-- through. Orphaned rows (credited, then their block left the chain) are for staff.
CREATE TABLE chain_transfers (
    network          text        NOT NULL,
    key              text        NOT NULL,
    user_id          text        NOT NULL,
    deposit_id       text        NOT NULL,
    asset            text        NOT NULL,
    amount           text        NOT NULL,
    tx_hash          text        NOT NULL,
    address          text        NOT NULL,
    block_hash       text        NOT NULL,
    height           bigint      NOT NULL,
    status           text        NOT NULL,
    deposit_recorded boolean     NOT NULL DEFAULT false,
    updated_at       timestamptz NOT NULL,
    PRIMARY KEY (network, key)
);
CREATE INDEX chain_transfers_open ON chain_transfers (network, status, height);
