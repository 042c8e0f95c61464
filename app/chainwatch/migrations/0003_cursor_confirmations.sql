-- The confirmations the network's watcher waits for, as configured, so that readers (the
-- investor's deposit, the staff queue) say "1 of 3" with the number the watcher uses; 0 until a
-- pass wrote it, read as the network's default.
ALTER TABLE chain_cursors ADD COLUMN confirmations bigint NOT NULL DEFAULT 0;
