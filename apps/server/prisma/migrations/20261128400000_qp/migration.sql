-- The codec's mean quantizer per frame (packages/protocol fields.ts, `qp`), appended for the video score:
-- how coarse a picture was coded for its content, which bits per pixel cannot tell (docs/scores.md).
ALTER TABLE stream_sample ADD COLUMN qp REAL;
ALTER TABLE stream_rollup ADD COLUMN qp REAL;
ALTER TABLE stream_block ADD COLUMN qp REAL[];
