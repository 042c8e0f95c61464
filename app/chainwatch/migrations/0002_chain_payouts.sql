-- The payouts staff recorded (money_chain_tx_hashes, kind 'payout') as the watcher last saw them
-- on the chain: its working index, so that a payout is looked up until it is done and never
-- again. The events on the payout's stream (chainpayout-<withdrawal id>) are the record.
CREATE TABLE chain_payouts (
    withdrawal_id text        PRIMARY KEY,
    network       text        NOT NULL,
    tx_hash       text        NOT NULL,
    status        text        NOT NULL,
    height        bigint      NOT NULL DEFAULT 0,
    confirmations bigint      NOT NULL DEFAULT 0,
    done          boolean     NOT NULL DEFAULT false,
    checked_at    timestamptz NOT NULL
);
CREATE INDEX chain_payouts_open ON chain_payouts (network, checked_at) WHERE NOT done;
CREATE INDEX chain_payouts_failed ON chain_payouts (network) WHERE status = 'failed';
