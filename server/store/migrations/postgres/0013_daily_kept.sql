-- Schema version 13 (from 12): a room of today's deal keeps which of its
-- games the day's tally counted (daily_counted, set in the same transaction
-- as the count) and the daily_result its player heard (daily_note), as
-- SqliteStore does (its schema version 10). Both NULL in any other room.
-- A room whose first game finished before this version is marked counted
-- now, as SQLite's migration does, so that no game counts twice.

ALTER TABLE rooms ADD COLUMN daily_counted BIGINT;
ALTER TABLE rooms ADD COLUMN daily_note TEXT;
UPDATE rooms SET daily_counted = 1 WHERE EXISTS
  (SELECT 1 FROM games WHERE games.room = rooms.code AND games.game = 1 AND games.finished_ms IS NOT NULL);
