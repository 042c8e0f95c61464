-- Turning two-factor sign-in on in one statement, sent with the user's event in one round trip
-- (totp.Store.ConfirmStatement checks the first code against the enrolment as it read it). The
-- enrolment is enabled only if it is still the one read (the same sealed secret, not enabled
-- yet); otherwise, since a pipelined statement's result cannot be read, the round trip fails
-- with a check violation of totp_enrolment_changed: the user began again with a new secret, or
-- another request enabled it.
CREATE FUNCTION totp_confirm(p_user uuid, p_sealed bytea, p_now timestamptz, p_step bigint, p_hashes text[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE totp SET enabled_at = p_now, last_step = p_step, recovery_hashes = p_hashes
    WHERE user_id = p_user AND secret_sealed = p_sealed AND enabled_at IS NULL;
    IF NOT FOUND THEN
        RAISE check_violation USING MESSAGE = 'totp: the enrolment changed since its code was checked',
            CONSTRAINT = 'totp_enrolment_changed';
    END IF;
END;
$$;
