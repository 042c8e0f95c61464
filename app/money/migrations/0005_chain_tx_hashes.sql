-- One transfer, one credit: every on-chain transaction the books name, a deposit's or a
-- payout's, by its network and its hash in that network's one canonical form
-- (payout.CanonicalTxHash: 64 lower-case hex digits, "0x" first on ERC20). The primary key is
-- the guard that holds under concurrent requests: a hash credits one deposit or settles one
-- payout, never two, and never both. It replaces money_tx_hashes, whose key was only trimmed and
-- lower-cased and so took "0x…", "…" and a hash with a zero-width space as different hashes.
CREATE TABLE money_chain_tx_hashes (
    network    text        NOT NULL,
    tx_hash    text        NOT NULL,
    kind       text        NOT NULL CHECK (kind IN ('deposit', 'payout')),
    -- the deposit's transaction id, or the withdrawal's id
    ref        text        NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (network, tx_hash)
);

-- Deposit hashes claimed before this table existed: money_tx_hashes kept no network, so a key
-- that is a well-formed hash once an optional 0x is dropped is claimed on every network whose
-- form it can take (64 hex digits on BTC and TRC20, 0x and 64 on ERC20). Hashes of different
-- chains do not collide in practice, so this over-claiming refuses nobody's real transfer, and
-- it keeps an old deposit's hash from being credited again in a new spelling. Variants of one
-- hash that were accepted as several deposits collapse into the first one's claim; the deposits
-- themselves are untouched (staff decide them). Keys that are not well-formed (with invisible
-- characters, too short) cannot be written again today, since new hashes must be well-formed;
-- they stay in money_tx_hashes, which is no longer written.
INSERT INTO money_chain_tx_hashes (network, tx_hash, kind, ref, created_at)
SELECT n.network,
       CASE WHEN n.network = 'ERC20' THEN '0x' || h.hex ELSE h.hex END,
       'deposit', h.transaction_id, h.created_at
FROM (SELECT regexp_replace(tx_hash_key, '^0x', '') AS hex, transaction_id, created_at
      FROM money_tx_hashes) h
CROSS JOIN (VALUES ('BTC'), ('ERC20'), ('TRC20')) AS n(network)
WHERE h.hex ~ '^[0-9a-f]{64}$'
ORDER BY h.created_at, h.transaction_id
ON CONFLICT (network, tx_hash) DO NOTHING;
