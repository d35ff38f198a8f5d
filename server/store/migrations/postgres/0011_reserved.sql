-- Schema version 11 (from 10): held for another branch's migration; this
-- branch changes nothing here. When that branch's 0011 is merged, this file
-- goes.

SELECT 1;
