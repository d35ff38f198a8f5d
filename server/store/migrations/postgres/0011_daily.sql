-- Schema version 11 (from 10): today's deal keeps, for each day, how many
-- of its games made each number of sets, as SqliteStore does (its schema
-- version 8).

CREATE TABLE daily_tally (
  day TEXT NOT NULL,
  sets INTEGER NOT NULL,
  games BIGINT NOT NULL,
  PRIMARY KEY (day, sets)
);
