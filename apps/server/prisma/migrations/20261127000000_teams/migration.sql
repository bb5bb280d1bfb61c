-- People, organizations and roles (issue 24). An organization owns projects; people are its members
-- with a role. Every existing project gets an organization of its own (named like it, no members yet):
-- its API keys keep working, with every scope.
CREATE TABLE organization (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);

ALTER TABLE project ADD COLUMN organization_id uuid;
UPDATE project SET organization_id = gen_random_uuid();
INSERT INTO organization (id, name, created_at) SELECT organization_id, name, created_at FROM project;
ALTER TABLE project ALTER COLUMN organization_id SET NOT NULL,
  ADD CONSTRAINT project_organization FOREIGN KEY (organization_id) REFERENCES organization (id) ON DELETE CASCADE;
CREATE INDEX project_organization_id ON project (organization_id);

-- What a key may do: ingest (import recordings), read, lab (campaigns, agents), admin (keys, settings, alerts).
ALTER TABLE api_key ADD COLUMN scopes text[] NOT NULL DEFAULT '{ingest,read,lab,admin}',
  ADD CONSTRAINT api_key_scopes CHECK (scopes <@ '{ingest,read,lab,admin}' AND cardinality(scopes) > 0);
ALTER TABLE api_key ALTER COLUMN scopes DROP DEFAULT;

CREATE TABLE app_user (
  id uuid PRIMARY KEY,
  -- As the person typed it; `email_key` (lower case) is what makes it unique.
  email text NOT NULL,
  email_key text NOT NULL UNIQUE,
  name text NOT NULL,
  -- argon2id (PHC string); null for someone who only signs in through single sign-on.
  password_hash text,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE membership (
  organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX membership_user ON membership (user_id);

-- A signed-in browser. The cookie holds the token; only its SHA-256 is kept, so a copy of the table opens nothing.
CREATE TABLE user_session (
  id bigserial PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  user_id uuid NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  last_seen_at timestamptz(3) NOT NULL DEFAULT now(),
  expires_at timestamptz(3) NOT NULL,
  revoked_at timestamptz(3),
  -- Where it was opened: shown to its person in their list of sessions.
  ip text,
  user_agent text,
  -- How it was opened: password, sso, link (the start command's one-time link), invitation, reset.
  method text NOT NULL,
  -- The secret its CSRF tokens are made from and checked against (@fastify/csrf), kept server-side.
  csrf_secret text NOT NULL
);
CREATE INDEX user_session_user ON user_session (user_id);

-- Single-use, expiring links that open an account: password resets and the start command's sign-in link.
CREATE TABLE user_token (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('reset', 'sign-in')),
  token_hash text NOT NULL UNIQUE,
  user_id uuid NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  expires_at timestamptz(3) NOT NULL,
  used_at timestamptz(3)
);

CREATE TABLE invitation (
  id bigserial PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  token_hash text NOT NULL UNIQUE,
  invited_by uuid REFERENCES app_user (id) ON DELETE SET NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  expires_at timestamptz(3) NOT NULL,
  accepted_at timestamptz(3),
  revoked_at timestamptz(3)
);
CREATE INDEX invitation_organization ON invitation (organization_id);

-- An organization's OpenID Connect provider: people whose email is in its domain sign in there.
CREATE TABLE sso_connection (
  organization_id uuid PRIMARY KEY REFERENCES organization (id) ON DELETE CASCADE,
  issuer text NOT NULL,
  client_id text NOT NULL,
  client_secret text NOT NULL,
  email_domain text NOT NULL UNIQUE,
  -- The role of someone who first arrives through it.
  default_role text NOT NULL CHECK (default_role IN ('admin', 'member', 'viewer')),
  created_at timestamptz(3) NOT NULL DEFAULT now()
);

-- Who a provider says someone is (its issuer and subject), once they signed in through it.
CREATE TABLE user_identity (
  issuer text NOT NULL,
  subject text NOT NULL,
  user_id uuid NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer, subject)
);

-- The audit log: append-only. It has no foreign keys, so that what it says outlives what it names
-- (a deleted project, a removed member); rows are refused change, and removal before 400 days.
CREATE TABLE audit_event (
  id bigserial PRIMARY KEY,
  organization_id uuid NOT NULL,
  at timestamptz(3) NOT NULL DEFAULT now(),
  actor_kind text NOT NULL CHECK (actor_kind IN ('user', 'key', 'system')),
  actor_id text,
  -- The person's email or the key's name, as it was then.
  actor_label text NOT NULL,
  action text NOT NULL,
  project_id uuid,
  target text,
  detail jsonb NOT NULL DEFAULT '{}',
  ip text
);
CREATE INDEX audit_event_organization ON audit_event (organization_id, at DESC, id DESC);

CREATE FUNCTION audit_event_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND OLD.at < now() - interval '400 days' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'the audit log is append-only';
END $$;
CREATE TRIGGER audit_event_append_only BEFORE UPDATE OR DELETE ON audit_event
  FOR EACH ROW EXECUTE FUNCTION audit_event_append_only();
CREATE FUNCTION audit_event_no_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only';
END $$;
CREATE TRIGGER audit_event_no_truncate BEFORE TRUNCATE ON audit_event
  FOR EACH STATEMENT EXECUTE FUNCTION audit_event_no_truncate();

-- Sign-in attempts counted per account and per client address, shared by every node
-- (rate-limiter-flexible's RateLimiterPostgres layout).
CREATE TABLE sign_in_limit (
  key text PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
