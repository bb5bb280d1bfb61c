-- The mean length of the interval's audio concealment events (packages/protocol fields.ts), appended for
-- the diagnosis' bursty-loss detector: loss in bursts makes long gaps, the same loss spread out short ones.
ALTER TABLE stream_sample ADD COLUMN concealment_event_ms REAL;
ALTER TABLE stream_rollup ADD COLUMN concealment_event_ms REAL;
ALTER TABLE stream_block ADD COLUMN concealment_event_ms REAL[];
