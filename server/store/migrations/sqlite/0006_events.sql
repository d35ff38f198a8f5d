-- Schema version 6 (from 5): class events (server/rooms/event.hpp): the
-- event with its settings, phase and round; its pupils by number, each
-- with the keyed hash of their token once the name is claimed; and the
-- tables of each round, the room of each and the pupil in each seat.

CREATE TABLE events(
  code TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  settings TEXT NOT NULL,
  teacher_hash BLOB NOT NULL,
  phase TEXT NOT NULL,
  round INTEGER NOT NULL,
  created_ms INTEGER NOT NULL);
CREATE TABLE event_pupils(
  event TEXT NOT NULL,
  pupil INTEGER NOT NULL,
  name TEXT NOT NULL,
  token_hash BLOB,
  PRIMARY KEY(event, pupil));
CREATE TABLE event_tables(
  event TEXT NOT NULL,
  round INTEGER NOT NULL,
  table_number INTEGER NOT NULL,
  room TEXT NOT NULL,
  seats TEXT NOT NULL,
  PRIMARY KEY(event, round, table_number));
