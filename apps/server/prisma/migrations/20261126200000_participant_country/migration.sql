-- Each participant's country, from its address at ingest with bundled data (clients/client.ts); the address is not kept.
ALTER TABLE participant ADD COLUMN country text;
