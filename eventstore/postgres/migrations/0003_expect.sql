-- A decision may rest on a stream it appends nothing to: a deposit request on an account rests
-- on the investor's verified e-mail address, in their user stream. postgres.AppendWith names
-- such a stream with the version the decision saw, and this check, run in the append's
-- transaction, lets the transaction commit only if the stream is still there.
--
-- Both functions raise CVA09, the append's conflict, with DETAIL the stream's actual version.
CREATE FUNCTION eventstore_expect(p_stream text, p_version bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    actual bigint := coalesce((SELECT version FROM streams WHERE stream_id = p_stream), 0);
BEGIN
    IF actual <> p_version THEN
        RAISE EXCEPTION 'eventstore: stream % is at version %, not %', p_stream, actual, p_version
            USING ERRCODE = 'CVA09', DETAIL = actual::text;
    END IF;
END;
$$;

-- Follows a single-event append in AppendWith's transaction. That append's statement writes
-- nothing, rather than failing, when its expectation fails; this fails the transaction then, so
-- that the statements sent with the append cannot commit without it.
CREATE FUNCTION eventstore_expect_event(p_event uuid, p_stream text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT FROM events WHERE event_id = p_event) THEN
        RAISE EXCEPTION 'eventstore: the append to % did not happen', p_stream
            USING ERRCODE = 'CVA09', DETAIL = coalesce((SELECT version FROM streams WHERE stream_id = p_stream), 0)::text;
    END IF;
END;
$$;
