-- Room on each page for the new version of a row when its answer is stored, so that the update
-- can stay on the page and leave the indexes alone (a HOT update: no indexed column changes, as
-- the owner is recorded with the claim). Without it, rows inserted one after another fill their
-- page, and the answer's update has to go to another page and add an entry to every index.
-- Pages filled before this keep their layout.
ALTER TABLE idempotency_keys SET (fillfactor = 70);
