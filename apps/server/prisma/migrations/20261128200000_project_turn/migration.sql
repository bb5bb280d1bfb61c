-- A project's TURN servers and the secret they share with us, which signs the time-limited credentials
-- the SDK and the pre-call test are handed (precall/turn-credentials.ts).
CREATE TABLE project_turn (
  project_id uuid PRIMARY KEY REFERENCES project (id) ON DELETE CASCADE,
  urls text[] NOT NULL,
  secret text NOT NULL,
  ttl_s integer NOT NULL DEFAULT 3600 CHECK (ttl_s BETWEEN 60 AND 86400),
  updated_at timestamptz NOT NULL DEFAULT now()
);
