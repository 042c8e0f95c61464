-- The write-side truth about who may act, checked on every request. The application writes these
-- rows in the same transaction as the events that change them, so a role change or a suspension
-- takes effect on the very next request rather than when a projection catches up.
CREATE TABLE principals (
    user_id    uuid        PRIMARY KEY,
    role       text        NOT NULL CHECK (role IN ('subscriber', 'author', 'admin')),
    status     text        NOT NULL CHECK (status IN ('active', 'suspended', 'closed')),
    updated_at timestamptz NOT NULL
);

-- Case-insensitive e-mail uniqueness: a primary key is the only guard that holds under
-- concurrent registrations, which is why it lives here and not in a read model.
CREATE TABLE user_emails (
    email_lower text PRIMARY KEY,
    user_id     uuid NOT NULL
);
CREATE INDEX user_emails_user_id ON user_emails (user_id);

CREATE TABLE credentials (
    user_id       uuid        PRIMARY KEY,
    password_hash text        NOT NULL,
    changed_at    timestamptz NOT NULL
);
