-- "Every enabled endpoint" said in a column of its own rather than by a NULL list: Prisma Client reads a
-- NULL list as an empty one (a rule that notifies no endpoint) and cannot write one.
ALTER TABLE alert_rule ADD COLUMN every_endpoint boolean NOT NULL DEFAULT false;
UPDATE alert_rule SET every_endpoint = true, endpoint_ids = '{}' WHERE endpoint_ids IS NULL;
ALTER TABLE alert_rule ALTER COLUMN endpoint_ids SET DEFAULT '{}', ALTER COLUMN endpoint_ids SET NOT NULL;
