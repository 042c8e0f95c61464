-- Claiming an e-mail address for a user in one statement, so that a registration can send it
-- with its events in one round trip (command.Submit, whose statements' results cannot be read).
-- The address is claimed, or found claimed by the same user already; claimed by another account
-- it fails with a check violation of user_emails_taken. A claim committed by a concurrent
-- registration is waited for by the insert and seen by the check after it, which reads anew.
CREATE FUNCTION auth_reserve_email(p_email text, p_user uuid)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO user_emails (email_lower, user_id) VALUES (p_email, p_user)
    ON CONFLICT (email_lower) DO NOTHING;
    IF NOT FOUND AND NOT EXISTS (SELECT 1 FROM user_emails WHERE email_lower = p_email AND user_id = p_user) THEN
        RAISE check_violation USING MESSAGE = 'principal: the e-mail address belongs to another account',
            CONSTRAINT = 'user_emails_taken';
    END IF;
END;
$$;
