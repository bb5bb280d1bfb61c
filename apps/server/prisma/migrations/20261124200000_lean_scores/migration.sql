-- A window score's participant and kind are its stream's: read through the stream, not written with
-- each of the thousands of scores a second a busy node stores.
ALTER TABLE stream_score DROP COLUMN participant, DROP COLUMN kind;
