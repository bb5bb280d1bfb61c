-- Alerts a person can trust (issue 60): a rule fires once its condition has held `fire_after_s` and
-- resolves once it has been clear `resolve_after_s` (a score that dips under its threshold and back every
-- few seconds was paged and resolved every 4–10 s); lab calls are judged only by rules that ask for them.
ALTER TABLE alert_rule
  ADD COLUMN fire_after_s INTEGER NOT NULL DEFAULT 0 CHECK (fire_after_s BETWEEN 0 AND 3600),
  ADD COLUMN resolve_after_s INTEGER NOT NULL DEFAULT 30 CHECK (resolve_after_s BETWEEN 0 AND 3600),
  ADD COLUMN include_lab BOOLEAN NOT NULL DEFAULT false;

-- Since when an open alert's condition has not held (null while it holds).
ALTER TABLE alert ADD COLUMN clear_since TIMESTAMPTZ;

-- A rule's condition holding for a subject that has not held `fire_after_s` yet: since when.
CREATE TABLE alert_pending (
  project_id UUID NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  rule_id UUID NOT NULL REFERENCES alert_rule(id) ON DELETE CASCADE,
  subject TEXT NOT NULL,
  since TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (rule_id, subject)
);
CREATE INDEX alert_pending_project ON alert_pending (project_id);

-- The insights' live traffic no longer counts the lab's calls: every rolled-up day is rolled up again.
INSERT INTO insight_day_dirty (project_id, day) SELECT DISTINCT project_id, day FROM insight_day ON CONFLICT DO NOTHING;
