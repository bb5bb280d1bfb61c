-- A participant who never connected (no connected state and no media) once its set-up was decided: it
-- left, its call ended, or it waited 30 s. Calls with a participant that may be one are summarized again.
ALTER TABLE participant_summary ADD COLUMN setup_failed boolean NOT NULL DEFAULT false;
UPDATE call SET summarized_at = NULL WHERE id IN (SELECT call_id FROM participant_summary WHERE setup_ms IS NULL);
