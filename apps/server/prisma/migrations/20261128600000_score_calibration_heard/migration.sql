-- The received audio windows of a calibration run, measured against the speech sent (PESQ); runs stored
-- before bench:quality measured audio have none.
ALTER TABLE score_calibration ADD COLUMN heard jsonb NOT NULL DEFAULT '[]';
