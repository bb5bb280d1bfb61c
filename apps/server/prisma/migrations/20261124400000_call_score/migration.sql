-- An ended call's score (the mean over its 5-s windows of its participants' scores), written when it ends,
-- so the calls list finds and sorts calls by score without reading their window scores.
ALTER TABLE call ADD COLUMN score REAL;
CREATE INDEX call_project_score ON call (project_id, score) WHERE score IS NOT NULL;
