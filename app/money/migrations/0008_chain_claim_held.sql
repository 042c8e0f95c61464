-- The chain watcher records a transfer in one round trip (command.Submit, whose statements'
-- results cannot be read), having read the transaction's claim before it decided: a deposit the
-- investor declared by hand for it, which the transfer is linked to, or none, when the transfer
-- claims the transaction itself (ON CONFLICT DO NOTHING). This check, sent after that claim,
-- takes the claim's row lock, which a staff confirmation takes too (money_not_paid_to_another),
-- and fails the round trip with a check violation of money_chain_claim_moved when the claim is
-- not the one the decision rested on: a declaration committed in between, and the watcher reads
-- it and decides again rather than crediting the transaction a second time.
CREATE FUNCTION money_chain_claim_held(p_network text, p_hash text, p_ref text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM money_chain_tx_hashes
    WHERE network = p_network AND tx_hash = p_hash AND ref = p_ref FOR UPDATE;
    IF NOT FOUND THEN
        RAISE check_violation USING MESSAGE = 'money: the transaction''s claim changed since it was read',
            CONSTRAINT = 'money_chain_claim_moved';
    END IF;
END;
$$;
