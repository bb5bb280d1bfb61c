-- Recordings imported as calls (recordings/import.ts): one per file content and project, so the same
-- file imported twice makes one call. The call's metadata names the file, its format and browser.
CREATE TABLE recording (
  project_id uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  sha256 bytea NOT NULL,
  call_id bigint NOT NULL REFERENCES call(id) ON DELETE CASCADE,
  file_name text NOT NULL,
  format text NOT NULL,
  bytes bigint NOT NULL,
  imported_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, sha256)
);
CREATE INDEX recording_call ON recording (call_id);
