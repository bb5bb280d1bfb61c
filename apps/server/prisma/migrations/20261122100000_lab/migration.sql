-- The lab: agents that run experiments, campaigns of runs, and the durable queue those runs wait in.

CREATE TABLE lab_agent (
  id            bigserial PRIMARY KEY,
  project_id    uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  name          text NOT NULL,
  -- SHA-256 of the agent token; the token is shown once.
  token_hash    text NOT NULL UNIQUE,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  last_seen_at  timestamptz(3),
  host          text,
  capabilities  jsonb
);
CREATE INDEX lab_agent_project ON lab_agent (project_id);

CREATE TABLE lab_campaign (
  id            bigserial PRIMARY KEY,
  project_id    uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  name          text NOT NULL,
  scenario      jsonb NOT NULL,
  parameters    jsonb NOT NULL DEFAULT '{}',
  created_at    timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX lab_campaign_project ON lab_campaign (project_id, id DESC);

CREATE TABLE lab_run (
  id            bigserial PRIMARY KEY,
  project_id    uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  campaign_id   bigint NOT NULL REFERENCES lab_campaign(id) ON DELETE CASCADE,
  variant       integer NOT NULL,
  repetition    integer NOT NULL,
  -- The campaign's scenario with this variant's parameters applied: what the agent runs.
  scenario      jsonb NOT NULL,
  status        text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  agent_id      bigint REFERENCES lab_agent(id) ON DELETE SET NULL,
  progress      real NOT NULL DEFAULT 0,
  message       text,
  call_id       text,
  started_at    timestamptz(3),
  heartbeat_at  timestamptz(3),
  finished_at   timestamptz(3),
  result        jsonb,
  outcome       jsonb,
  error         text,
  UNIQUE (campaign_id, variant, repetition)
);
CREATE INDEX lab_run_queued ON lab_run (project_id, id) WHERE status = 'queued';
CREATE INDEX lab_run_running ON lab_run (heartbeat_at) WHERE status = 'running';
