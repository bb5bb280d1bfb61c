-- Bounds on what a flood through the publishable key can make (issue 32).
-- Calls a project may have live at once; null: the deployment's PROJECT_LIVE_CALLS.
ALTER TABLE project ADD COLUMN live_call_limit integer CHECK (live_call_limit > 0);
-- Counted at each handshake that would start a call.
CREATE INDEX call_live ON call (project_id) WHERE ended_at IS NULL;
-- An alert fired while its rule had paged often lately: kept and shown, but not notified one by one
-- (one "held back" alert of the rule says how many there are).
ALTER TABLE alert ADD COLUMN quiet boolean NOT NULL DEFAULT false;
