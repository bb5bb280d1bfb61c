-- How many of a sample's values were outside the field table and stored as null (packages/protocol
-- fields.ts, `outOfRange`): a browser's quirk is counted beside the sample instead of losing its batch.
ALTER TABLE stream_sample ADD COLUMN out_of_range INTEGER;
ALTER TABLE stream_rollup ADD COLUMN out_of_range INTEGER;
ALTER TABLE stream_block ADD COLUMN out_of_range INTEGER[];
ALTER TABLE connection_sample ADD COLUMN out_of_range INTEGER;
ALTER TABLE connection_rollup ADD COLUMN out_of_range INTEGER;
ALTER TABLE connection_block ADD COLUMN out_of_range INTEGER[];
