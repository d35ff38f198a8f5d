-- Schema version 8 (from 7): held for another branch's migration; this
-- branch changes nothing here. When that branch's 0008 is merged, this file
-- goes.

SELECT 1;
