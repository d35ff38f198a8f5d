-- Schema version 4 (from 3): decisions are appended in commit order (the rowid) with no
-- other index, so a batch of actions from many rooms writes the table's
-- last page or two instead of one index page per room; a game finds its
-- decisions from its first one's rowid (games.first_decision). A
-- decision may carry its room's event version (v), so an action writes
-- one row instead of also rewriting its room's row.

CREATE TABLE decisions_appended(
  id INTEGER PRIMARY KEY,
  game_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  decision TEXT NOT NULL,
  v INTEGER);
INSERT INTO decisions_appended(game_id, seq, decision)
  SELECT game_id, seq, decision FROM decisions ORDER BY game_id, seq;
DROP TABLE decisions;
ALTER TABLE decisions_appended RENAME TO decisions;
ALTER TABLE games ADD COLUMN first_decision INTEGER;
CREATE INDEX migrating_decisions ON decisions(game_id);
UPDATE games SET first_decision = (SELECT min(id) FROM decisions WHERE decisions.game_id = games.game_id);
DROP INDEX migrating_decisions;
