-- Each participant's call in a row (insights/summaries.ts), written when its call ends and kept current
-- while it runs, so the fleet's pages read these and never scan samples. Means are over the
-- participant's streams and the call's length; rates are sums over its streams.
CREATE TABLE participant_summary (
  participant_id bigint PRIMARY KEY REFERENCES participant(id) ON DELETE CASCADE,
  project_id uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  call_id bigint NOT NULL REFERENCES call(id) ON DELETE CASCADE,
  started_at timestamptz(3) NOT NULL,
  ended_at timestamptz(3),
  seconds real NOT NULL,
  score real,
  rtt_ms real,
  loss_pct real,
  jitter_ms real,
  sent_kbps real,
  received_kbps real,
  fps real,
  height real,
  freezes integer,
  setup_ms real,
  local_candidate_type text,
  local_protocol text,
  issues text[] NOT NULL DEFAULT '{}'
);
CREATE INDEX participant_summary_time ON participant_summary (project_id, started_at);
-- When the call's summaries were last written: a live call's every minute, an ended call's once after it ended.
ALTER TABLE call ADD COLUMN summarized_at timestamptz(3);
