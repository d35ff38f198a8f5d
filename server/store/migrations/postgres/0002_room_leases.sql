-- Schema version 2 (from 1): room leases (one owner per room when several servers share
-- the database) and the guard that fences a room's writes by its lease.
-- The guard locks the lease row (FOR SHARE), so a node taking the room
-- over waits for a commit in flight, then fences out the ones after it.

CREATE TABLE room_lease(
  code TEXT PRIMARY KEY,
  node TEXT NOT NULL,
  epoch BIGINT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL);
CREATE INDEX room_lease_by_node ON room_lease(node);
CREATE FUNCTION gofish_fence(room TEXT, holder TEXT, held_epoch BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM room_lease WHERE code = room AND node = holder AND epoch = held_epoch FOR SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'room % is no longer leased to node % at epoch %', room, holder, held_epoch
      USING ERRCODE = 'GF001';
  END IF;
END $$;
