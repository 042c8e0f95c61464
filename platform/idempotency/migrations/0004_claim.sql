-- The claim of a key whose record commits with the command its request runs (api/idempotency,
-- "with the command"): sent in that command's transaction, it takes the key, or one whose time
-- is up, and otherwise fails as a unique violation of the key, so that the command does not
-- commit. A second request with the key waits here for the first one's transaction to end.
-- Its record has no lease (locked_until NULL): it exists only once the command has committed,
-- and is never run again.
CREATE FUNCTION idempotency_claim(p_id bytea, p_hash bytea, p_token uuid, p_ttl double precision, p_owner uuid)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO idempotency_keys AS k (id, request_hash, token, locked_until, expires_at, owner)
    VALUES (p_id, p_hash, p_token, NULL, now() + make_interval(secs => p_ttl), p_owner)
    ON CONFLICT (id) DO UPDATE SET request_hash = EXCLUDED.request_hash, token = EXCLUDED.token,
        locked_until = NULL, response = NULL, created_at = now(), expires_at = EXCLUDED.expires_at,
        owner = EXCLUDED.owner
    WHERE k.expires_at <= now();
    IF NOT FOUND THEN
        RAISE unique_violation USING MESSAGE = 'idempotency: the key is taken',
            CONSTRAINT = 'idempotency_keys_pkey';
    END IF;
END;
$$;
