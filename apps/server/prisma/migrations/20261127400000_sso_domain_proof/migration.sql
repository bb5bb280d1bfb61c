-- A single sign-on connection signs on its email domain only once the organization proved the domain is
-- its own: a TXT record at _rtcscope-challenge.<domain> holding the connection's token (issue 32). A claim
-- not proved keeps no one else from the domain; one domain is proved by one organization at most.
ALTER TABLE sso_connection ADD COLUMN domain_token text, ADD COLUMN domain_verified_at timestamptz(3);
UPDATE sso_connection SET domain_token = md5(random()::text || clock_timestamp()::text || organization_id::text);
ALTER TABLE sso_connection ALTER COLUMN domain_token SET NOT NULL;
-- Connections made before proofs existed were taken on trust then, and keep signing on: an operator who
-- doubts one removes it, and its organization sets it up again with a proof.
UPDATE sso_connection SET domain_verified_at = created_at;
ALTER TABLE sso_connection DROP CONSTRAINT sso_connection_email_domain_key;
CREATE UNIQUE INDEX sso_connection_proved_domain ON sso_connection (email_domain) WHERE domain_verified_at IS NOT NULL;
