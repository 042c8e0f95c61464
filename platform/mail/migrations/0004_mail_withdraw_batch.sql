-- A cancelled broadcast withdraws the messages of its batch that still wait and that no sender
-- is working on. The cancellation's event records how many, counted just before; it is sent in
-- the command's one round trip (command.Submit), whose statements' results cannot be read, so
-- this fails the whole transaction with a check violation of mail_withdrawn_as_counted when the
-- count moved in between (a sender claimed a message), and the cancellation is tried again.
CREATE FUNCTION mail_withdraw_batch(p_batch text, p_expected integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    withdrawn integer;
BEGIN
    DELETE FROM mail_outbox WHERE batch = p_batch AND status = 'pending' AND claim IS NULL;
    GET DIAGNOSTICS withdrawn = ROW_COUNT;
    IF withdrawn <> p_expected THEN
        RAISE check_violation USING MESSAGE = format('mail: %s messages of %s could be withdrawn, not %s',
            withdrawn, p_batch, p_expected), CONSTRAINT = 'mail_withdrawn_as_counted';
    END IF;
END;
$$;
