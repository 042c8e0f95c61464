-- Issuing a one-time code, in one statement: otp.Codes.Issue runs it in the caller's
-- transaction, and a command that sends its writes in one round trip (command.Submit) sends it
-- with its events. Under the user and purpose's lock, a code of the purpose made after p_since
-- (the cooldown's start; NULL when the purpose has none) refuses the new one: the function
-- returns that code's time and stores nothing, or, with p_refuse, fails with a check violation
-- of one_time_codes_cooldown, since a pipelined statement's result cannot be read. Otherwise it
-- deletes the codes the new one replaces (p_replaces) or the expired ones, stores the new code
-- and returns NULL.
CREATE FUNCTION otp_issue(p_id uuid, p_user uuid, p_purpose text, p_hash bytea, p_expires timestamptz,
    p_now timestamptz, p_since timestamptz, p_replaces boolean, p_refuse boolean)
RETURNS timestamptz LANGUAGE plpgsql AS $$
DECLARE
    v_last timestamptz;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('otp:' || p_user::text || ':' || p_purpose, 0));
    IF p_since IS NOT NULL THEN
        SELECT max(created_at) INTO v_last FROM one_time_codes WHERE user_id = p_user AND purpose = p_purpose;
        IF v_last > p_since THEN
            IF p_refuse THEN
                RAISE check_violation USING MESSAGE = 'otp: a code of this purpose was issued within its cooldown',
                    CONSTRAINT = 'one_time_codes_cooldown';
            END IF;
            RETURN v_last;
        END IF;
    END IF;
    IF p_replaces THEN
        DELETE FROM one_time_codes WHERE user_id = p_user AND purpose = p_purpose;
    ELSE
        DELETE FROM one_time_codes WHERE user_id = p_user AND purpose = p_purpose AND expires_at < p_now;
    END IF;
    INSERT INTO one_time_codes (id, user_id, purpose, code_hash, expires_at, created_at)
    VALUES (p_id, p_user, p_purpose, p_hash, p_expires, p_now);
    RETURN NULL;
END;
$$;
