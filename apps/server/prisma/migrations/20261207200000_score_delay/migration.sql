-- An audio window's mouth-to-ear delay as its score read it (packages/diagnosis emodel.ts, `mouthToEarMs`):
-- the call page says what a listener hears apart from what a conversation suffers ("sounds fine, but 400 ms
-- late"). Null for video, and for windows scored before it was kept.
ALTER TABLE stream_score ADD COLUMN delay_ms REAL;
