-- A project's ingest limit in stream and connection samples per second on each node; NULL takes the
-- deployment's PROJECT_INGEST_LIMIT. Set by the operator (admin.ts set-ingest-limit).
ALTER TABLE project ADD COLUMN ingest_limit INTEGER
  CONSTRAINT project_ingest_limit_positive CHECK (ingest_limit >= 1000);
