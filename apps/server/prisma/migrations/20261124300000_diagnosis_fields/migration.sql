-- Stream fields appended to the wire format for the diagnosis (packages/protocol fields.ts): the share of
-- audio concealed, the jitter buffer's mean delay, the time video stood frozen in the interval, and the
-- audio level. Older SDKs leave them out: NULL.
ALTER TABLE stream_sample ADD COLUMN concealed_pct REAL, ADD COLUMN jitter_buffer_ms REAL, ADD COLUMN freeze_ms REAL, ADD COLUMN audio_level REAL;
ALTER TABLE stream_rollup ADD COLUMN concealed_pct REAL, ADD COLUMN jitter_buffer_ms REAL, ADD COLUMN freeze_ms REAL, ADD COLUMN audio_level REAL;
ALTER TABLE stream_block ADD COLUMN concealed_pct REAL[], ADD COLUMN jitter_buffer_ms REAL[], ADD COLUMN freeze_ms REAL[], ADD COLUMN audio_level REAL[];
