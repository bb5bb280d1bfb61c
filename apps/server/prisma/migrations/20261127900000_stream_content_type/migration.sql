-- The browser's contentType of a stream ('screenshare' for a shared screen): a still page sends a frame or
-- two a second, which the diagnosis and the score do not read as a frozen or choppy picture.
ALTER TABLE stream ADD COLUMN content_type TEXT;
