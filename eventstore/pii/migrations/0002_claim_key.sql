-- Claiming a subject's key in one statement (Cipher.ClaimStatement), so that a registration can
-- send it with its first events in one round trip, whose statements' results cannot be read: the
-- key's created_at is refreshed, or, when the key was swept or erased before the events could
-- commit, the round trip fails with a check violation of pii_key_gone.
CREATE FUNCTION pii_claim_key(p_subject text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE pii_keys SET created_at = now() WHERE subject_id = p_subject AND key_sealed IS NOT NULL;
    IF NOT FOUND THEN
        RAISE check_violation USING MESSAGE = 'pii: the subject''s key was swept or erased',
            CONSTRAINT = 'pii_key_gone';
    END IF;
END;
$$;
