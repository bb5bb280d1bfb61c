-- Sample rows keyed by the minute within their 10-minute slice first: (minute, id, ts) instead of
-- (id, ts). Keyed by id, every stream inserts into a leaf page of its own, so the first write to each
-- after a checkpoint logs a full image of that page: ~48,500 images at 38,400 samples/s when the
-- checkpoint began minutes into a slice, and ack p99 ~1.1 s in that minute. Led by the minute, inserts
-- go to the current minute's pages alone (7,669 images and p99 139 ms in the same soak). The key is
-- as unique as before: the minute is a function of ts. Reads by id name every minute
-- (apps/server/src/db/points.ts), an index search on any PostgreSQL.
-- `% 10` is the slice's 10 minutes (BLOCK_SPAN_MS); ts - epoch, not ts, keeps the expression immutable.

-- A slice whose detach was interrupted would not get the column, and could then never be detached: its
-- rows no longer match the table's. Finishing the detach first leaves it to compaction as any detached slice.
DO $$
DECLARE part record;
BEGIN
  FOR part IN SELECT inhparent::regclass AS parent, inhrelid::regclass AS child FROM pg_inherits
              WHERE inhdetachpending AND inhparent IN ('stream_sample'::regclass, 'connection_sample'::regclass) LOOP
    EXECUTE format('ALTER TABLE %s DETACH PARTITION %s FINALIZE', part.parent, part.child);
  END LOOP;
END $$;

ALTER TABLE stream_sample
  ADD COLUMN minute SMALLINT NOT NULL GENERATED ALWAYS AS ((floor(date_part('epoch', ts - 'epoch'::timestamptz) / 60)::int % 10)::smallint) STORED;
ALTER TABLE stream_sample DROP CONSTRAINT stream_sample_pkey, ADD PRIMARY KEY (minute, stream_id, ts);

ALTER TABLE connection_sample
  ADD COLUMN minute SMALLINT NOT NULL GENERATED ALWAYS AS ((floor(date_part('epoch', ts - 'epoch'::timestamptz) / 60)::int % 10)::smallint) STORED;
ALTER TABLE connection_sample DROP CONSTRAINT connection_sample_pkey, ADD PRIMARY KEY (minute, connection_id, ts);
