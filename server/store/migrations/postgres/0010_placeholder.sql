-- Schema version 10 (from 9): a placeholder, changing nothing, so that 0011
-- follows with no gap; the migration written for version 10 beside it
-- replaces this file.
SELECT 1;
