-- A call made from an imported recording is kept from the day it was imported, whatever its recorded
-- dates (recordings/expiry.ts), and told apart from live traffic in insights and alerts.
ALTER TABLE call ADD COLUMN imported_at timestamptz(3);
UPDATE call SET imported_at = r.imported_at FROM recording r WHERE r.call_id = call.id;
CREATE INDEX call_imported ON call (imported_at) WHERE imported_at IS NOT NULL;

-- Streams and connections of imported calls take ids of their own tier (retention-tiers.ts), whose day
-- partitions retention never drops: their samples go with their call when it expires.
CREATE OR REPLACE FUNCTION rtcscope_imported_id_base() RETURNS BIGINT
  LANGUAGE sql IMMUTABLE
  RETURN 4::BIGINT << 48;
