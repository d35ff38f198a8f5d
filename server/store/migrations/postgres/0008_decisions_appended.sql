-- Schema version 8 (from 7): decisions are appended in the order they are written (id,
-- from the sequence decision_ids) with no other index, as SqliteStore's
-- version 4 does: a batch of actions from many rooms adds to the
-- index's last page instead of descending to a page per game (the
-- primary key by game and number cost each row about 2.7 us more than
-- no index at all; pgbench, 52 rows a statement). A game finds its
-- decisions between games.first_decision, a value of decision_ids drawn
-- when the game is written (before any of its decisions: the sequence
-- caches no values, so it rises across connections and nodes), and
-- games.last_decision, the highest id when it finished. Both are bounds,
-- not exact ids, and a game of a server before this version has NULL:
-- read as the whole table. Servers still on version 7 during a rolling
-- upgrade keep working (the id has a default); only their reads scan.

CREATE SEQUENCE decision_ids AS BIGINT;
CREATE TABLE decisions_appended(
  id BIGINT PRIMARY KEY DEFAULT nextval('decision_ids'),
  game_id TEXT NOT NULL,
  seq BIGINT NOT NULL,
  decision TEXT NOT NULL,
  v BIGINT);
ALTER SEQUENCE decision_ids OWNED BY decisions_appended.id;
INSERT INTO decisions_appended(game_id, seq, decision, v)
  SELECT game_id, seq, decision, v FROM decisions ORDER BY game_id, seq;
DROP TABLE decisions;
ALTER TABLE decisions_appended RENAME TO decisions;
ALTER INDEX decisions_appended_pkey RENAME TO decisions_pkey;
ALTER TABLE games ADD COLUMN first_decision BIGINT, ADD COLUMN last_decision BIGINT;
UPDATE games SET first_decision = d.first, last_decision = CASE WHEN games.finished_ms IS NOT NULL THEN d.last END
  FROM (SELECT game_id, min(id) AS first, max(id) AS last FROM decisions GROUP BY game_id) AS d
  WHERE d.game_id = games.game_id;
UPDATE games SET first_decision = nextval('decision_ids') WHERE first_decision IS NULL;
UPDATE games SET last_decision = first_decision WHERE finished_ms IS NOT NULL AND last_decision IS NULL;
