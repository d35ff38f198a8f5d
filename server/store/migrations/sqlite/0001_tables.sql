-- Schema version 1 (from 0): the first schema.

CREATE TABLE meta(key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE rooms(
  code TEXT PRIMARY KEY,
  settings TEXT NOT NULL,
  created_ms INTEGER NOT NULL);
CREATE TABLE seats(
  room TEXT NOT NULL,
  seat INTEGER NOT NULL,
  state TEXT NOT NULL,
  token_hash BLOB,
  PRIMARY KEY(room, seat));
CREATE TABLE games(
  game_id TEXT PRIMARY KEY,
  room TEXT,
  game INTEGER NOT NULL,
  setup TEXT NOT NULL,
  started_ms INTEGER NOT NULL,
  transcript TEXT,
  finished_ms INTEGER);
CREATE INDEX games_by_room ON games(room, game);
CREATE INDEX games_by_finish ON games(finished_ms) WHERE finished_ms IS NOT NULL;
CREATE TABLE decisions(
  game_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  decision TEXT NOT NULL,
  PRIMARY KEY(game_id, seq));
