-- The issue elsewhere in the call an issue follows from (a receiver's loss from its sender's congested
-- uplink: packages/diagnosis causes.ts). Shown under its cause; alerts page the cause once.
ALTER TABLE call_issue ADD COLUMN caused_by BIGINT REFERENCES call_issue(id) ON DELETE SET NULL;
CREATE INDEX call_issue_caused_by ON call_issue (caused_by) WHERE caused_by IS NOT NULL;
