-- Schema version 10 (from 9): event tables keep their finished game's id
-- and result, as SqliteStore does (its schema version 7).

ALTER TABLE event_tables ADD COLUMN game_id TEXT;
ALTER TABLE event_tables ADD COLUMN result TEXT;
