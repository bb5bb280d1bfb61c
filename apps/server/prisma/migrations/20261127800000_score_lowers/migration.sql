-- What lowers each window's score: the points each factor takes from it, in the order of protocol's
-- SCORE_FACTOR_NAMES (bitRate, resolution, frameRate, loss, freezes, delay), NULL where it does not apply
-- to the stream's kind. NULL for windows scored before it was kept.
ALTER TABLE stream_score ADD COLUMN lowers REAL[];
