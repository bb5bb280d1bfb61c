-- The insights of each UTC day per breakdown and segment (insights/day-rollup.ts), from participants'
-- summaries: counts, and per metric a sparse histogram with its exact count and sum. Long periods read
-- these, not every participant. A day is written again whenever one of its summaries is.
CREATE TABLE insight_day (
  project_id uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  day date NOT NULL,
  breakdown text NOT NULL,
  segment text,
  calls integer NOT NULL,
  participants integer NOT NULL,
  minutes double precision NOT NULL,
  setup_failures integer NOT NULL,
  metrics jsonb NOT NULL,
  issues jsonb NOT NULL
);
CREATE INDEX insight_day_read ON insight_day (project_id, breakdown, day);

-- Days whose summaries changed since their rollup was written.
CREATE TABLE insight_day_dirty (
  project_id uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  day date NOT NULL,
  PRIMARY KEY (project_id, day)
);
INSERT INTO insight_day_dirty SELECT DISTINCT project_id, (started_at AT TIME ZONE 'UTC')::date FROM participant_summary;
