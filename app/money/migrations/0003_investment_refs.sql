-- Investments by id, so staff and the owner can find the account an investment lives in. Written
-- in the transaction of the account.investment_requested event (and of a reinvestment), so a
-- decision right after the request finds it whatever the read models' lag.
CREATE TABLE money_investment_refs (
    investment_id text        PRIMARY KEY,
    user_id       text        NOT NULL,
    created_at    timestamptz NOT NULL
);
