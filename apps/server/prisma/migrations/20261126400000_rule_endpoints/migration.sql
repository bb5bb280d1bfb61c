-- The endpoints a rule's notifications go to; null: every enabled endpoint of its project.
ALTER TABLE alert_rule ADD COLUMN endpoint_ids uuid[];
