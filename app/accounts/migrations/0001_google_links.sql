-- Google accounts linked to Clearvest accounts, by Google's stable subject id (never by e-mail:
-- an address can change hands, a subject cannot). A row is written only after the person proved
-- they own the Clearvest account (its password or an e-mailed code) or when Google sign-in
-- created the account.
CREATE TABLE google_links (
    subject   text        PRIMARY KEY,
    user_id   uuid        NOT NULL UNIQUE,
    linked_at timestamptz NOT NULL
);
