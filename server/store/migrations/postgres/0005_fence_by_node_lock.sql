-- Schema version 5 (from 4): the guard locks no rows. Locking every lease of a batch FOR
-- SHARE wrote each lease row's header and a WAL record per room, and
-- was half of what a batch cost PostgreSQL (pg_stat_statements under
-- bench/run's load). Instead a batch holds its node's advisory lock
-- (shared, until it commits), and a lease taken from a node (its epoch
-- raised, by any statement, hence a trigger) takes that node's lock
-- exclusively: the takeover waits for the node's batches in flight,
-- and a batch that starts after it waits for it to commit, then sees
-- the new epoch, since each statement of a function reads what was
-- committed before it started. The lock's key is (1735353964, "gofl"
-- in ASCII, and the node name's hashtext). gofish_fence, unused since
-- 4, goes.

CREATE OR REPLACE FUNCTION gofish_fence_rooms(rooms TEXT[], holder TEXT, held_epochs BIGINT[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  lost TEXT;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(1735353964, hashtext(holder));
  SELECT f.code INTO lost FROM unnest(rooms, held_epochs) AS f(code, epoch)
    WHERE NOT EXISTS (SELECT 1 FROM room_lease l WHERE l.code = f.code AND l.node = holder AND l.epoch = f.epoch)
    LIMIT 1;
  IF lost IS NOT NULL THEN
    RAISE EXCEPTION 'room % is no longer leased to node %', lost, holder USING ERRCODE = 'GF001', DETAIL = lost;
  END IF;
END $$;
CREATE FUNCTION gofish_lease_taken() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.epoch <> OLD.epoch THEN
    PERFORM pg_advisory_xact_lock(1735353964, hashtext(OLD.node));
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER room_lease_taken BEFORE UPDATE ON room_lease FOR EACH ROW EXECUTE FUNCTION gofish_lease_taken();
DROP FUNCTION IF EXISTS gofish_fence(TEXT, TEXT, BIGINT);
