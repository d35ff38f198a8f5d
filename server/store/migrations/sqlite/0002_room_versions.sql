-- Schema version 2 (from 1): each room's event version, so a restored room carries on
-- numbering its events where its players left off.

ALTER TABLE rooms ADD COLUMN v INTEGER NOT NULL DEFAULT 0;
