-- Schema version 10 (from 9): a room of today's deal keeps, over a restart,
-- which of its games the day's tally counted (daily_counted: the game's
-- number, set in the same transaction as the count, so a restored room's
-- game is never counted twice) and the daily_result its player heard
-- (daily_note: the message and whose seat token it is for, as the room
-- layer spells it), so a reload after a restart hears it again. Both NULL
-- in any other room.
--
-- A room whose first game finished before this version may have been
-- counted without a mark: it is marked now, so that no game counts twice
-- (one the server stopped before counting is then left out; any room's
-- mark is read only if its game was dealt a day's deal).

ALTER TABLE rooms ADD COLUMN daily_counted INTEGER;
ALTER TABLE rooms ADD COLUMN daily_note TEXT;
UPDATE rooms SET daily_counted = 1 WHERE EXISTS
  (SELECT 1 FROM games WHERE games.room = rooms.code AND games.game = 1 AND games.finished_ms IS NOT NULL);
