-- Every serve process keeps principals and sessions in memory for the per-request check
-- (session.Guard) and listens on the channel clearvest_auth. These triggers announce, in the
-- transaction that makes it and so delivered exactly when it commits, every change that can
-- take a right away: a role or status change, a revocation, an expiry moved, a row deleted.
-- The payload is the user id; '*' (a TRUNCATE) means "forget everyone". Whoever writes these
-- tables, through whichever code path, is covered.
--
-- Not announced: new rows (nothing about them can be cached yet) and activity (last_seen_at,
-- refresh token rotation), which change nothing a cached check relies on. Deleting a revoked
-- session is not announced either: it is refused whether or not its row exists. (Expiry is
-- not judged here: the database's clock need not agree with the application's.)
CREATE FUNCTION notify_auth_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_LEVEL = 'STATEMENT' THEN
        PERFORM pg_notify('clearvest_auth', '*');
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('clearvest_auth', OLD.user_id::text);
    ELSE
        PERFORM pg_notify('clearvest_auth', NEW.user_id::text);
        IF OLD.user_id <> NEW.user_id THEN
            PERFORM pg_notify('clearvest_auth', OLD.user_id::text);
        END IF;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER principals_changed AFTER UPDATE ON principals FOR EACH ROW
    WHEN ((OLD.user_id, OLD.role, OLD.status) IS DISTINCT FROM (NEW.user_id, NEW.role, NEW.status))
    EXECUTE FUNCTION notify_auth_change();
CREATE TRIGGER principals_deleted AFTER DELETE ON principals FOR EACH ROW
    EXECUTE FUNCTION notify_auth_change();
CREATE TRIGGER principals_truncated AFTER TRUNCATE ON principals FOR EACH STATEMENT
    EXECUTE FUNCTION notify_auth_change();

CREATE TRIGGER sessions_changed AFTER UPDATE ON sessions FOR EACH ROW
    WHEN ((OLD.user_id, OLD.revoked_at, OLD.expires_at) IS DISTINCT FROM (NEW.user_id, NEW.revoked_at, NEW.expires_at))
    EXECUTE FUNCTION notify_auth_change();
CREATE TRIGGER sessions_deleted AFTER DELETE ON sessions FOR EACH ROW
    WHEN (OLD.revoked_at IS NULL)
    EXECUTE FUNCTION notify_auth_change();
CREATE TRIGGER sessions_truncated AFTER TRUNCATE ON sessions FOR EACH STATEMENT
    EXECUTE FUNCTION notify_auth_change();
