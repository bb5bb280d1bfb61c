-- Who made each API key: a person, or the person who made the key it was made with. A key ends with its
-- maker's right to make it (removed from the organization, or no longer an admin). Null: made before
-- this, with the project, or by the operator's command.
ALTER TABLE api_key ADD COLUMN created_by uuid REFERENCES app_user (id) ON DELETE CASCADE;
CREATE INDEX api_key_created_by ON api_key (created_by) WHERE created_by IS NOT NULL;
