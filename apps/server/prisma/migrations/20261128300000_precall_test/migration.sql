-- A pre-call test (the SDK's runPrecallTest) streams its samples as a call of its own kind, judged like
-- calls but listed apart from them; its result is a row of its own beside that call.
ALTER TABLE call ADD COLUMN kind text NOT NULL DEFAULT 'call' CHECK (kind IN ('call', 'precall'));

CREATE TABLE precall_test (
  id bigserial PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
  -- One result per test: a result sent again is the same test, not a second one.
  call_id bigint NOT NULL UNIQUE REFERENCES call (id) ON DELETE CASCADE,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  ticket text,
  verdict text NOT NULL CHECK (verdict IN ('good', 'fair', 'poor', 'failed')),
  -- The way media went through the TURN server; null when none worked.
  transport text CHECK (transport IN ('udp', 'tcp', 'tls')),
  -- No server-reflexive candidate: the browser has no public address of its own, so peers reach it only through a relay.
  needs_turn boolean NOT NULL,
  -- Each way to the TURN server; null when the project's servers offer no URL of that kind.
  udp_ok boolean,
  tcp_ok boolean,
  tls_ok boolean,
  throughput_kbps real,
  rtt_ms real,
  jitter_ms real,
  loss_pct real,
  report jsonb NOT NULL
);
CREATE INDEX precall_test_recent ON precall_test (project_id, created_at DESC);
CREATE INDEX precall_test_ticket ON precall_test (project_id, ticket) WHERE ticket IS NOT NULL;
