-- Fixed-window counters shared by every process. expires_at lets one DELETE clear old windows
-- whatever their length; a row with count 0 is a block (a back-off) that ends at expires_at.
CREATE TABLE rate_limits (
    key          text        NOT NULL,
    window_start timestamptz NOT NULL,
    count        integer     NOT NULL,
    expires_at   timestamptz NOT NULL,
    PRIMARY KEY (key, window_start)
);
CREATE INDEX rate_limits_expires_at ON rate_limits (expires_at);
