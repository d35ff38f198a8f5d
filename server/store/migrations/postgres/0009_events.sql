-- Schema version 9 (from 8): class events, as SqliteStore keeps them (its
-- schema version 6), column for column.

CREATE TABLE events(
  code TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  settings TEXT NOT NULL,
  teacher_hash BYTEA NOT NULL,
  phase TEXT NOT NULL,
  round BIGINT NOT NULL,
  created_ms BIGINT NOT NULL);
CREATE TABLE event_pupils(
  event TEXT NOT NULL,
  pupil BIGINT NOT NULL,
  name TEXT NOT NULL,
  token_hash BYTEA,
  PRIMARY KEY(event, pupil));
CREATE TABLE event_tables(
  event TEXT NOT NULL,
  round BIGINT NOT NULL,
  table_number BIGINT NOT NULL,
  room TEXT NOT NULL,
  seats TEXT NOT NULL,
  PRIMARY KEY(event, round, table_number));
