-- Schema version 12 (from 11): a room keeps its next deal under
-- gofish-deal/1 (its secret seed and the seats' contributions), as
-- SqliteStore does (its schema version 9). NULL while a game is in play,
-- and in a room written before this version.

ALTER TABLE rooms ADD COLUMN next_deal TEXT;
