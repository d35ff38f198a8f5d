-- Schema version 7 (from 6): the guard reads one row per batch, not every room's lease
-- (the check of each room's epoch cost PostgreSQL 57 to 116 us a batch,
-- about 3% of bench/run's actions/s). node_fence counts the leases
-- taken from each node; the takeover's trigger adds to it in the same
-- transaction as the new epoch. A batch checks that its node's count is
-- still the one it knows; if not, the node reads the count and which of
-- its rooms it lost, in one statement, drops those and sends the batch
-- again. gofish_fenced_out stays for nodes still on version 6 during a
-- rolling upgrade.

CREATE TABLE node_fence(node TEXT PRIMARY KEY, losses BIGINT NOT NULL);
CREATE OR REPLACE FUNCTION gofish_lease_taken() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.epoch <> OLD.epoch THEN
    PERFORM pg_advisory_xact_lock(1735353964, hashtext(OLD.node));
    INSERT INTO node_fence(node, losses) VALUES(OLD.node, 1)
      ON CONFLICT (node) DO UPDATE SET losses = node_fence.losses + 1;
  END IF;
  RETURN NEW;
END $$;
CREATE FUNCTION gofish_node_lost_lease(holder TEXT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'node % lost a lease since its last check', holder USING ERRCODE = 'GF002';
END $$;
