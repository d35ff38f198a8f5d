-- Schema version 6 (from 5): the guard is two plain statements, no longer a plpgsql
-- function called on every batch (its call cost PostgreSQL about 75 us
-- a batch, as much as half its check; pg_stat_statements under
-- bench/run's load): the node's advisory lock, shared, then the check
-- of the rooms' epochs, a statement of its own so that it reads what a
-- takeover the lock waited for committed. Only when a room is lost does
-- the check call gofish_fenced_out, which raises.

CREATE OR REPLACE FUNCTION gofish_fenced_out(lost TEXT, holder TEXT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'room % is no longer leased to node %', lost, holder USING ERRCODE = 'GF001', DETAIL = lost;
END $$;
DROP FUNCTION IF EXISTS gofish_fence_rooms(TEXT[], TEXT, BIGINT[]);
