-- Schema version 11 (from 10): event tables keep their finished game's id
-- and result, as SqliteStore does (its schema version 8).

ALTER TABLE event_tables ADD COLUMN game_id TEXT;
ALTER TABLE event_tables ADD COLUMN result TEXT;
