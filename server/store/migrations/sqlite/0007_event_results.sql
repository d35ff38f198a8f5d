-- Schema version 7 (from 6): each table of an event's round keeps its
-- finished game's public id and its result (each seat's name and the ranks
-- of its sets, the protocol's JSON), so the results of every round come
-- back after a restart.

ALTER TABLE event_tables ADD COLUMN game_id TEXT;
ALTER TABLE event_tables ADD COLUMN result TEXT;
