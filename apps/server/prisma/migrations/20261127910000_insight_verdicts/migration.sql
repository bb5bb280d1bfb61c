-- The call's one verdict (good, fair, poor, unknown: packages/metrics quality.ts) on each of its
-- participants' summaries, and per day and segment the calls of each verdict: insights say it as the
-- calls list does.
ALTER TABLE participant_summary ADD COLUMN verdict TEXT;
ALTER TABLE insight_day ADD COLUMN verdicts JSONB NOT NULL DEFAULT '{}';
