-- One data key per data subject (a user), sealed with the key-encryption key derived from
-- CLEARVEST_SECRET_KEY. Personal fields in events are encrypted with the subject's data key, so
-- destroying it erases them from the whole log while the events themselves stay.
--
-- Erasure destroys the key but keeps the row as a tombstone (key_sealed NULL, erased_at set):
-- a sealed field whose row is missing altogether then means a wrong or damaged database and fails
-- loudly, instead of quietly reading as erased, and no new key can be made for an erased subject.
CREATE TABLE pii_keys (
    subject_id text        PRIMARY KEY,
    key_sealed bytea,
    created_at timestamptz NOT NULL DEFAULT now(),
    erased_at  timestamptz,
    CHECK ((key_sealed IS NULL) = (erased_at IS NOT NULL))
);
