-- Accounts the maturity job could not settle. The job pays every other due account and tries a
-- parked one again at retry_at, waiting longer after each failure; the row goes once it settles.
-- failures counts the attempts that failed since it was parked, error is the last one (for staff
-- and the logs, never shown to investors).
CREATE TABLE money_maturity_parked (
    user_id   text        PRIMARY KEY,
    failures  integer     NOT NULL,
    error     text        NOT NULL,
    parked_at timestamptz NOT NULL,
    retry_at  timestamptz NOT NULL
);
