-- The LiveKit key a project's LiveKit server signs its webhooks with: they are verified with its secret.
CREATE TABLE project_livekit (
  project_id uuid PRIMARY KEY REFERENCES project (id) ON DELETE CASCADE,
  api_key text NOT NULL,
  secret text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
