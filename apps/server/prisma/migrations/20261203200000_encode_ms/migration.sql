-- The encoder's mean time per frame (packages/protocol fields.ts, `encodeMs`), appended for the diagnosis'
-- CPU-limitation detector: a starved sender takes tens of ms a frame where a network-limited one takes a few.
ALTER TABLE stream_sample ADD COLUMN encode_ms REAL;
ALTER TABLE stream_rollup ADD COLUMN encode_ms REAL;
ALTER TABLE stream_block ADD COLUMN encode_ms REAL[];
