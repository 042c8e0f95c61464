-- One pending or approved testimonial per user. The aggregate sees one testimonial, so the
-- service claims the author's place here in the transaction of testimonial.submitted and frees
-- it in the transaction of testimonial.rejected; a primary key is the only guard that holds
-- under concurrent submissions.
CREATE TABLE testimonial_authors (
    user_id        text        PRIMARY KEY,
    testimonial_id text        NOT NULL UNIQUE,
    claimed_at     timestamptz NOT NULL
);
