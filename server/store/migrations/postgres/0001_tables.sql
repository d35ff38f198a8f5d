-- Schema version 1 (from 0): SqliteStore's tables (its schema version 3), column for column.

CREATE TABLE meta(key TEXT PRIMARY KEY, value BYTEA NOT NULL);
CREATE TABLE rooms(
  code TEXT PRIMARY KEY,
  settings TEXT NOT NULL,
  created_ms BIGINT NOT NULL,
  v BIGINT NOT NULL DEFAULT 0,
  set_aside TEXT,
  set_aside_ms BIGINT);
CREATE TABLE seats(
  room TEXT NOT NULL,
  seat INTEGER NOT NULL,
  state TEXT NOT NULL,
  token_hash BYTEA,
  PRIMARY KEY(room, seat));
CREATE TABLE games(
  game_id TEXT PRIMARY KEY,
  room TEXT,
  game BIGINT NOT NULL,
  setup TEXT NOT NULL,
  started_ms BIGINT NOT NULL,
  transcript TEXT,
  finished_ms BIGINT);
CREATE INDEX games_by_room ON games(room, game);
CREATE INDEX games_by_finish ON games(finished_ms) WHERE finished_ms IS NOT NULL;
CREATE TABLE decisions(
  game_id TEXT NOT NULL,
  seq BIGINT NOT NULL,
  decision TEXT NOT NULL,
  PRIMARY KEY(game_id, seq));
