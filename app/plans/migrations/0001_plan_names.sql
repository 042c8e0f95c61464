-- The plan catalogue's names, one row per plan, keyed by the name ignoring case and spacing
-- (plan.NameKey). A primary key is the only guard that holds under concurrent creations, which
-- is why it lives here, written in the transaction of the plan.created event, and not in a read
-- model.
CREATE TABLE plan_names (
    name_key   text        PRIMARY KEY,
    plan_id    text        NOT NULL UNIQUE,
    claimed_at timestamptz NOT NULL
);
