-- The write side's index of referral codes, written in the transaction that registers the user:
-- a sign-up finds its referrer even when the users read model has not caught up with the
-- referrer's own sign-up a moment ago. Codes are upper case; a closed account's code is deleted
-- with its other sign-in data, so it refers nobody.
CREATE TABLE referral_codes (
    code    text PRIMARY KEY,
    user_id uuid NOT NULL UNIQUE
);

-- Accounts registered before this table existed, from their streams' first events.
INSERT INTO referral_codes (code, user_id)
SELECT upper(data->>'referralCode'), (data->>'userId')::uuid
FROM events
WHERE type = 'user.registered' AND coalesce(data->>'referralCode', '') <> ''
ON CONFLICT DO NOTHING;

DELETE FROM referral_codes r USING principals p WHERE p.user_id = r.user_id AND p.status = 'closed';
