-- A single sign-on under way: what the callback checks the provider's answer against (the state, the
-- nonce, the PKCE verifier), for ten minutes, once. The state is sent to the provider and comes back in
-- the callback's URL: only its SHA-256 is kept.
CREATE TABLE sso_attempt (
  state_hash text PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
  code_verifier text NOT NULL,
  nonce text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
