-- A calibration run of the video score (bench:quality uploads it): lab windows measured against the clip
-- sent, with the score each was given; the dashboard's "How good is the score" page draws the latest.
CREATE TABLE score_calibration (
  id bigserial PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  setup jsonb NOT NULL,
  windows jsonb NOT NULL
);
CREATE INDEX score_calibration_recent ON score_calibration (project_id, created_at DESC, id DESC);
