-- Schema version 8 (from 7): today's deal keeps, for each day, how many
-- of its games made each number of sets, and nothing else about them.

CREATE TABLE daily_tally (
  day TEXT NOT NULL,
  sets INTEGER NOT NULL,
  games INTEGER NOT NULL,
  PRIMARY KEY (day, sets)
) WITHOUT ROWID;
