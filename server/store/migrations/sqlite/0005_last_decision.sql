-- Schema version 5 (from 4): a finished game's transcript is no longer written (it is its
-- set-up and decisions, played again when asked for); the game keeps
-- where its decisions end (the last rowid when it finished), so they
-- are read from first_decision to last_decision. Games finished before
-- keep their transcript and no last_decision.

ALTER TABLE games ADD COLUMN last_decision INTEGER;
