-- Schema version 3 (from 2): a decision may carry its room's event version, so an action
-- writes one row instead of also updating its room's row (SqliteStore's
-- schema version 4 does the same).

ALTER TABLE decisions ADD COLUMN v BIGINT;
