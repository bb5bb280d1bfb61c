-- Blocks by time alone. Compaction looks for blocks that already hold a slice's samples (a slice made
-- again for late rows) among the blocks of the slice's 10 minutes only; without this index that
-- meant reading every block of the day, for every slice.
CREATE INDEX stream_block_t0 ON stream_block (t0);
CREATE INDEX connection_block_t0 ON connection_block (t0);
