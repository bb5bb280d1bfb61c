-- What each participant's client is (clients/client.ts: parsed at ingest from its user agent, client
-- hints and SDK handshake), for the insights' breakdowns. Only these parts are kept, not the user agent
-- itself, and no address (docs/privacy.md).
ALTER TABLE participant
  ADD COLUMN browser text,
  ADD COLUMN browser_version text,
  ADD COLUMN os text,
  ADD COLUMN device_type text,
  ADD COLUMN sdk_version text;
