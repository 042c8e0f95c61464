-- Resending a sign-in attempt's code in one statement, sent with the e-mail that carries the new
-- code (otp.Codes.Resend decides on the attempt as it read it, and the caller sends this with
-- the message in one round trip). Under the user and purpose's lock, the attempt read (p_id,
-- its code made at p_made) gets the new code only if it is still the latest of its purpose,
-- unspent, not burnt and unchanged since it was read. Otherwise the round trip fails with a
-- check violation, since a pipelined statement's result cannot be read:
-- one_time_codes_cooldown when the attempt got a newer code meanwhile (another resend), and
-- one_time_codes_attempt_gone when it was spent, burnt or replaced.
CREATE FUNCTION otp_resend(p_id uuid, p_user uuid, p_purpose text, p_made timestamptz, p_hash bytea,
    p_now timestamptz, p_expires timestamptz, p_max integer)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('otp:' || p_user::text || ':' || p_purpose, 0));
    UPDATE one_time_codes SET code_hash = p_hash, created_at = p_now, expires_at = p_expires
    WHERE id = p_id AND created_at = p_made AND used_at IS NULL AND attempts < p_max
      AND id = (SELECT id FROM one_time_codes WHERE user_id = p_user AND purpose = p_purpose
                ORDER BY created_at DESC LIMIT 1);
    IF FOUND THEN
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM one_time_codes WHERE id = p_id AND created_at > p_made
               AND used_at IS NULL AND attempts < p_max) THEN
        RAISE check_violation USING MESSAGE = 'otp: the attempt got a new code meanwhile',
            CONSTRAINT = 'one_time_codes_cooldown';
    END IF;
    RAISE check_violation USING MESSAGE = 'otp: the attempt ended meanwhile',
        CONSTRAINT = 'one_time_codes_attempt_gone';
END;
$$;
