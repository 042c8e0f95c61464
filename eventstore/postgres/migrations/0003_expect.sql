-- A decision may rest on a stream it appends nothing to: a deposit request on an account rests
-- on the investor's verified e-mail address, in their user stream. postgres.AppendWith names
-- such a stream with the version the decision saw, and this check, run in the append's
-- transaction, lets the transaction commit only if the stream is still there.
--
-- Both functions raise CVA09, the append's conflict.
-- p_streams[k] must be at version p_versions[k]; one statement for all the checks of a batch.
-- DETAIL is "<index of the stream, from 1> <its actual version>", as for eventstore_append.
CREATE FUNCTION eventstore_expect(p_streams text[], p_versions bigint[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    actual bigint;
BEGIN
    FOR k IN 1 .. coalesce(array_length(p_streams, 1), 0) LOOP
        actual := coalesce((SELECT version FROM streams WHERE stream_id = p_streams[k]), 0);
        IF actual <> p_versions[k] THEN
            RAISE EXCEPTION 'eventstore: stream % is at version %, not %', p_streams[k], actual, p_versions[k]
                USING ERRCODE = 'CVA09', DETAIL = k || ' ' || actual;
        END IF;
    END LOOP;
END;
$$;

-- Follows a single-event append in AppendWith's transaction. That append's statement writes
-- nothing, rather than failing, when its expectation fails; this fails the transaction then, so
-- that the statements sent with the append cannot commit without it. DETAIL is "1 <the
-- stream's actual version>".
CREATE FUNCTION eventstore_expect_event(p_event uuid, p_stream text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT FROM events WHERE event_id = p_event) THEN
        RAISE EXCEPTION 'eventstore: the append to % did not happen', p_stream
            USING ERRCODE = 'CVA09', DETAIL = '1 ' || coalesce((SELECT version FROM streams WHERE stream_id = p_stream), 0);
    END IF;
END;
$$;
