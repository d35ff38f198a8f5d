-- Schema version 7 (from 6): a placeholder, changing nothing, so that 0008
-- follows with no gap; the migration written for version 7 beside it
-- replaces this file.
SELECT 1;
