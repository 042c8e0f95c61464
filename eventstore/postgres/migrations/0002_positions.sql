-- Positions that survive a restore, visibility bounded by this store's own appends, and appends
-- in one round trip. docs/eventstore.md ("Positions") explains the reasoning.
--
-- position = ((id of the writing transaction + xid_offset) << 16) | index within the append.
--
-- Transaction ids start again from a few hundred in a new cluster (pg_dump and pg_restore, a
-- move to another server), so without the offset new events would sort below every stored one.
-- The offset lives in the database, so every dump carries it; after a restore it is raised once
-- (postgres.AdvancePositionOffset, run by serve and migrate at start-up) so that new positions
-- are above the log's head again. It only ever grows, and it changes only under an ACCESS
-- EXCLUSIVE lock of this table, which every append and every read holds in ACCESS SHARE mode
-- for as long as it uses the value.
CREATE TABLE event_position_offset (
    singleton  boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    xid_offset bigint      NOT NULL DEFAULT 0 CHECK (xid_offset >= 0),
    updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO event_position_offset DEFAULT VALUES;

-- False when a committed event's position is at or above what the next append would get: the
-- state of a database restored into a cluster whose transaction ids are lower. Every committed
-- transaction's id is below the snapshot's xmax, so in normal operation this is never false.
-- The store checks it on each connection before the connection's first append.
CREATE FUNCTION eventstore_positions_ok() RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT coalesce((SELECT max(position) FROM events), 0)
         < (SELECT (pg_snapshot_xmax(pg_current_snapshot())::text::bigint + xid_offset) << 16
            FROM event_position_offset)
$$;

-- The exclusive upper bound of the positions a reader may return.
--
-- Appends take their streams' advisory locks (namespace 1129727315, "CVES") before their
-- transaction gets an id, and hold them until it ends. An event can appear later below a
-- position p only if its transaction was running, with an id below p, when the reader's
-- snapshot was taken. So the bound is the lowest id among the running transactions of this
-- statement's snapshot S (pg_snapshot_xip) that may be appends, or S's xmax when there is none.
-- pg_locks, read after S was taken, rules a running transaction out when its id lock is held
-- by a transaction without a stream lock of this database: such a transaction had its id
-- before any stream lock, and AppendTx refuses to append in it. So other databases'
-- transactions, and this one's that write other tables, do not hold readers back. A
-- transaction whose id lock is not in pg_locks is either still getting it (it bounds the read)
-- or has ended since S.
--
-- later_read says the events will be read by a later statement of a READ COMMITTED
-- transaction (postgres.ReadAll and Head do so, in the same round trip): its snapshot sees
-- whatever ended before now, so transactions that ended since S are ruled out too. That makes
-- the bound tight and never lower than one computed before. Otherwise (the events are read in S
-- itself, as in a REPEATABLE READ transaction or in the same statement) they still bound the
-- read, since S cannot see what they wrote.
--
-- STABLE, so it sees the caller's snapshot.
CREATE FUNCTION eventstore_visible_below(later_read boolean DEFAULT false) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
DECLARE
    snap   pg_snapshot := pg_current_snapshot();
    bound  xid8 := pg_snapshot_xmax(snap);
    later  boolean := later_read AND current_setting('transaction_isolation') = 'read committed';
    held   xid[];
    others xid[];
BEGIN
    IF pg_snapshot_xmin(snap) < bound THEN
        WITH l AS MATERIALIZED (
            SELECT locktype, database, classid, objsubid, virtualtransaction, transactionid, mode
            FROM pg_locks WHERE locktype IN ('advisory', 'transactionid'))
        SELECT coalesce(array_agg(t.transactionid), '{}'),
               coalesce(array_agg(t.transactionid) FILTER (WHERE NOT EXISTS (
                   SELECT 1 FROM l a
                   WHERE a.locktype = 'advisory' AND a.classid = 1129727315 AND a.objsubid = 2
                     AND a.virtualtransaction = t.virtualtransaction
                     AND a.database = (SELECT oid FROM pg_database WHERE datname = current_database()))), '{}')
        INTO held, others
        FROM l t
        WHERE t.locktype = 'transactionid' AND t.mode = 'ExclusiveLock';
        SELECT coalesce(min(x), bound) INTO bound
        FROM pg_snapshot_xip(snap) AS x
        WHERE x::xid <> ALL (others)
          AND NOT (later AND x::xid <> ALL (held)
                   AND coalesce(pg_xact_status(x) IN ('committed', 'aborted'), false));
    END IF;
    RETURN (bound::text::bigint + (SELECT xid_offset FROM event_position_offset)) << 16;
END;
$$;

-- Refuses an append in a transaction that has an id already: it would not come after the
-- stream locks, which both the order of a stream's events and eventstore_visible_below depend on.
CREATE FUNCTION eventstore_write_before_append() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'eventstore: AppendTx must come before any other write in its transaction'
        USING ERRCODE = 'CVA01';
END;
$$;

-- An append of any number of streams and events; single events to one stream, the usual case,
-- take a single statement instead (appendOne in append.go), which costs the server less.
-- p_counts[k] events of p_streams[k] follow each other in the event arrays, in stream order.
-- expected: -1 any version, 0 no stream yet, n exactly n. Locks are taken in the order of their
-- keys, so two appends naming the same streams never wait for each other in a cycle. A failed
-- expectation rolls the whole append back (CVA09, DETAIL "<index of the stream, from 1> <its
-- actual version>"). Returns each stream's version after the append.
CREATE FUNCTION eventstore_append(
    p_streams text[], p_expected bigint[], p_counts integer[],
    p_ids uuid[], p_types text[], p_schemas integer[], p_data jsonb[], p_meta jsonb[],
    OUT base bigint, OUT recorded_at timestamptz, OUT versions bigint[])
LANGUAGE plpgsql AS $$
DECLARE
    off         bigint;
    n           bigint;
    v           bigint;
    actual      bigint;
    ev_streams  text[] := '{}';
    ev_versions bigint[] := '{}';
BEGIN
    IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
        PERFORM eventstore_write_before_append();
    END IF;
    -- Read before the transaction gets its id, holding the table's ACCESS SHARE lock.
    off := (SELECT xid_offset FROM event_position_offset);
    PERFORM pg_advisory_xact_lock(1129727315, h)
    FROM (SELECT DISTINCT hashtext(s) AS h FROM unnest(p_streams) AS s ORDER BY 1) AS keys;
    versions := '{}';
    FOR k IN 1 .. coalesce(array_length(p_streams, 1), 0) LOOP
        n := p_counts[k];
        v := NULL;
        IF n = 0 THEN
            v := coalesce((SELECT s.version FROM streams AS s WHERE s.stream_id = p_streams[k]), 0);
            IF p_expected[k] <> -1 AND v <> p_expected[k] THEN
                v := NULL;
            END IF;
        ELSIF p_expected[k] = -1 THEN
            INSERT INTO streams AS s (stream_id, version) VALUES (p_streams[k], n)
            ON CONFLICT (stream_id) DO UPDATE SET version = s.version + n
            RETURNING s.version INTO v;
        ELSIF p_expected[k] = 0 THEN
            INSERT INTO streams AS s (stream_id, version) VALUES (p_streams[k], n)
            ON CONFLICT (stream_id) DO UPDATE SET version = s.version + n WHERE s.version = 0
            RETURNING s.version INTO v;
        ELSE
            UPDATE streams AS s SET version = s.version + n WHERE s.stream_id = p_streams[k] AND s.version = p_expected[k]
            RETURNING s.version INTO v;
        END IF;
        IF v IS NULL THEN
            actual := coalesce((SELECT s.version FROM streams AS s WHERE s.stream_id = p_streams[k]), 0);
            RAISE EXCEPTION 'eventstore: stream % is at version %, expected %', p_streams[k], actual, p_expected[k]
                USING ERRCODE = 'CVA09', DETAIL = k || ' ' || actual;
        END IF;
        versions := versions || v;
        IF n > 0 THEN
            ev_streams := ev_streams || array_fill(p_streams[k], ARRAY[n]::integer[]);
            ev_versions := ev_versions || ARRAY(SELECT generate_series(v - n + 1, v));
        END IF;
    END LOOP;
    recorded_at := now();
    IF coalesce(array_length(p_ids, 1), 0) = 0 THEN
        base := 0;
        RETURN;
    END IF;
    base := (pg_current_xact_id()::text::bigint + off) << 16;
    INSERT INTO events (position, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at)
    SELECT base | e.n, e.id, e.s, e.v, e.t, e.sv, e.d, e.m, recorded_at
    FROM unnest(p_ids, p_types, p_schemas, p_data, p_meta, ev_streams, ev_versions)
         WITH ORDINALITY AS e(id, t, sv, d, m, s, v, n);
END;
$$;
