-- Compaction in progress. A slice of samples is compacted a chunk of streams (connections) at a time,
-- with pauses between chunks, so that it takes a share of a core for minutes instead of a whole core
-- at once. Its rows stay until the last step; until then the blocks written from them are hidden from
-- reads (every block with t0 in [from_ts, to_ts) of the kind), which would otherwise count each such
-- sample twice. The last step empties the slice and deletes the row here in one transaction: readers
-- see rows, then blocks, never both. Internal bookkeeping of the server, not a project's data.
CREATE TABLE compaction (
    partition TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('stream', 'connection')),
    from_ts TIMESTAMPTZ(3) NOT NULL,
    to_ts TIMESTAMPTZ(3) NOT NULL,
    started_at TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

-- The chunks compacted so far: ids from first_id up to next_id (the last chunk has none: to the end),
-- and how many rows the partition held for them when they were compacted. A pass that stops goes on
-- from the last chunk's next_id; the last step counts the rows again and compacts once more any chunk
-- that received rows since (a late batch).
CREATE TABLE compaction_chunk (
    partition TEXT NOT NULL REFERENCES compaction ON DELETE CASCADE,
    first_id BIGINT NOT NULL,
    next_id BIGINT,
    rows BIGINT NOT NULL,
    PRIMARY KEY (partition, first_id)
);
