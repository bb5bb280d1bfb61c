-- The frame rate the sender's camera delivers (packages/protocol fields.ts), appended for the diagnosis'
-- CPU-limitation detector: a camera giving 30 frames a second to an encoder that sends 10 is a starved CPU.
ALTER TABLE stream_sample ADD COLUMN capture_fps REAL;
ALTER TABLE stream_rollup ADD COLUMN capture_fps REAL;
ALTER TABLE stream_block ADD COLUMN capture_fps REAL[];
