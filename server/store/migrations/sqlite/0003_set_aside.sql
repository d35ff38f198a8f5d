-- Schema version 3 (from 2): a room the server cannot rebuild is set aside (why, and when)
-- instead of stopping the start; load_open_rooms skips it.

ALTER TABLE rooms ADD COLUMN set_aside TEXT;
ALTER TABLE rooms ADD COLUMN set_aside_ms INTEGER;
