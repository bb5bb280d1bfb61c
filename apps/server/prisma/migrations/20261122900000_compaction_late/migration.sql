-- Rows that reach a slice after its compaction began (a batch resent late). Compaction used to find
-- them by counting the slice's rows again at its last step, a scan of every row of the slice in one
-- go (~23 million at 38,400 samples/s), unpaced beside ingest. Instead, when it begins, compaction puts
-- a trigger on the slice that notes each new row's stream (connection) here, and the last step
-- compacts again only the chunks noted. The trigger and these rows go with the slice's compaction.
CREATE TABLE compaction_late (
    partition TEXT NOT NULL REFERENCES compaction ON DELETE CASCADE,
    id BIGINT NOT NULL,
    PRIMARY KEY (partition, id)
);

-- TG_ARGV[0]: the id column (stream_id or connection_id). Late rows are few: a row trigger is cheap.
CREATE FUNCTION compaction_note_late() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO compaction_late (partition, id) VALUES (TG_TABLE_NAME, (to_jsonb(NEW) ->> TG_ARGV[0])::bigint) ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;

-- A compaction begun before this has no trigger: its chunks' blocks (hidden, and the only blocks of
-- its range: a slice that had blocks is compacted in one step) are deleted, and it begins again.
DELETE FROM stream_block b USING compaction c WHERE c.kind = 'stream' AND b.t0 >= c.from_ts AND b.t0 < c.to_ts;
DELETE FROM connection_block b USING compaction c WHERE c.kind = 'connection' AND b.t0 >= c.from_ts AND b.t0 < c.to_ts;
DELETE FROM compaction;
