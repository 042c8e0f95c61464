-- The cache of market prices: not events, since nothing here is a fact about our users or
-- their money, only a copy of what public providers published, refreshed from them and safe to
-- lose. One row per symbol, interval and day; a refresh overwrites the days it fetched (the
-- current day's candle changes until it closes) and keeps the others.
CREATE TABLE market_candles (
    symbol   text    NOT NULL,
    interval text    NOT NULL,
    day      date    NOT NULL,
    open     numeric NOT NULL CHECK (open > 0),
    high     numeric NOT NULL CHECK (high > 0),
    low      numeric NOT NULL CHECK (low > 0),
    close    numeric NOT NULL CHECK (close > 0),
    PRIMARY KEY (symbol, interval, day)
);

-- How fresh each series is. claimed_at is when a process last set out to fetch it: the claim is
-- an upsert that only succeeds when the previous one is old enough, so of several serve
-- processes one fetches per period. fetched_at is the last success, which decides whether the
-- cache is live or stale; failed_at and last_error the last failure, for operators.
CREATE TABLE market_refreshes (
    symbol     text        NOT NULL,
    interval   text        NOT NULL,
    source     text        NOT NULL,
    claimed_at timestamptz NOT NULL,
    fetched_at timestamptz,
    failed_at  timestamptz,
    last_error text,
    PRIMARY KEY (symbol, interval)
);
