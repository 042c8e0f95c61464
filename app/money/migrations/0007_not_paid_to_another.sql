-- A staff confirmation of a deposit declared for a transaction rests on the chain watcher not
-- having seen that transaction pay another investor's own address (money_chain_sightings).
-- The confirmation sends this in its own transaction (command.Submit, whose statements' results
-- cannot be read): it takes the row lock of the hash's claim, which RecordChainDeposit takes
-- too, so that whichever of the two commits second sees the other, and fails the transaction
-- with a check violation of money_paid_to_another when such a sighting exists.
CREATE FUNCTION money_not_paid_to_another(p_network text, p_hash text, p_user text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM money_chain_tx_hashes WHERE network = p_network AND tx_hash = p_hash FOR UPDATE;
    IF EXISTS (SELECT 1 FROM money_chain_sightings
               WHERE network = p_network AND tx_hash = p_hash AND user_id <> p_user) THEN
        RAISE check_violation USING MESSAGE = 'money: the transaction paid another investor''s address',
            CONSTRAINT = 'money_paid_to_another';
    END IF;
END;
$$;
