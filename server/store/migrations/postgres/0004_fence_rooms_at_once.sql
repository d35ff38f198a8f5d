-- Schema version 4 (from 3): one guard for every room of a batch, not a call per room. It
-- locks the leases still held (FOR SHARE, as gofish_fence does), then
-- names the first room whose lease is not, in the error's DETAIL.

CREATE OR REPLACE FUNCTION gofish_fence_rooms(rooms TEXT[], holder TEXT, held_epochs BIGINT[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  lost TEXT;
BEGIN
  PERFORM 1 FROM room_lease l JOIN unnest(rooms, held_epochs) AS f(code, epoch)
    ON l.code = f.code AND l.node = holder AND l.epoch = f.epoch FOR SHARE OF l;
  SELECT f.code INTO lost FROM unnest(rooms, held_epochs) AS f(code, epoch)
    WHERE NOT EXISTS (SELECT 1 FROM room_lease l WHERE l.code = f.code AND l.node = holder AND l.epoch = f.epoch)
    LIMIT 1;
  IF lost IS NOT NULL THEN
    RAISE EXCEPTION 'room % is no longer leased to node %', lost, holder USING ERRCODE = 'GF001', DETAIL = lost;
  END IF;
END $$;
