-- Alerts (alerts/): rules a project sets, the alerts they raise, the notifications those make, and the
-- webhook outbox that delivers each notification to each endpoint until it is taken (or 24 hours pass).
CREATE TABLE alert_rule (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  name text NOT NULL,
  enabled boolean NOT NULL,
  condition jsonb NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX alert_rule_project ON alert_rule (project_id);

-- One alert per rule and subject (a call's issue, a participant, the fleet) while its condition holds.
CREATE TABLE alert (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  rule_id uuid NOT NULL REFERENCES alert_rule(id) ON DELETE CASCADE,
  subject text NOT NULL,
  call_id bigint REFERENCES call(id) ON DELETE CASCADE,
  participant text,
  summary text NOT NULL,
  value real,
  started_at timestamptz(3) NOT NULL DEFAULT now(),
  resolved_at timestamptz(3)
);
-- Every node evaluates the rules: this is what makes an alert fire once.
CREATE UNIQUE INDEX alert_open_once ON alert (rule_id, subject) WHERE resolved_at IS NULL;

CREATE TABLE webhook_endpoint (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  url text NOT NULL,
  format text NOT NULL CHECK (format IN ('json', 'slack')),
  enabled boolean NOT NULL,
  secret text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoint_project ON webhook_endpoint (project_id);

-- What was told: the payload as every receiver gets it (AlertNotification), kept 30 days.
CREATE TABLE notification (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  payload jsonb NOT NULL
);
CREATE INDEX notification_project_time ON notification (project_id, created_at DESC);

-- The outbox: written in the transaction that makes the notification, so nothing told is lost.
CREATE TABLE webhook_delivery (
  id bigserial PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  notification_id uuid NOT NULL REFERENCES notification(id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoint(id) ON DELETE CASCADE,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz(3) NOT NULL DEFAULT now(),
  lease_until timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (notification_id, endpoint_id)
);
CREATE INDEX webhook_delivery_due ON webhook_delivery (next_attempt_at) WHERE state = 'pending';

-- Each try, for the endpoint's delivery log.
CREATE TABLE webhook_attempt (
  id bigserial PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  delivery_id bigint NOT NULL REFERENCES webhook_delivery(id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoint(id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  at timestamptz(3) NOT NULL DEFAULT now(),
  status_code integer,
  duration_ms real NOT NULL,
  error text
);
CREATE INDEX webhook_attempt_endpoint ON webhook_attempt (endpoint_id, at DESC);

-- The call conditions read a live call's open issues of a type.
CREATE INDEX call_issue_open ON call_issue (project_id, type) WHERE ended_at IS NULL;
-- The fleet's set-up failures read the participants who joined in the last 15 minutes.
CREATE INDEX participant_project_joined ON participant (project_id, joined_at);
