-- Retention per project, by dropping whole partitions. A project keeps samples 7, 30, 90 or 365 days.
-- Its streams' and connections' ids carry that tier in their top bits (tier << 48), and each day's
-- sample partition is split by id range into one sub-partition per tier, so a tier's old days are
-- dropped whole. Ids from before this migration are tier 0 (30 days, the default).
ALTER TABLE project ADD COLUMN retention_days INTEGER NOT NULL DEFAULT 30
  CONSTRAINT project_retention_days_tier CHECK (retention_days IN (30, 7, 90, 365));

-- The tier order is part of every stored id: append new tiers, never reorder (src/db/retention-tiers.ts).
CREATE FUNCTION rtcscope_id_base(retention_days INTEGER) RETURNS BIGINT
  LANGUAGE sql IMMUTABLE STRICT
  RETURN (CASE retention_days WHEN 30 THEN 0 WHEN 7 THEN 1 WHEN 90 THEN 2 WHEN 365 THEN 3 END)::BIGINT << 48;
