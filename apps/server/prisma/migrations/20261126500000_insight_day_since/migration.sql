-- When a day was first marked since its last rollup: a day is rolled up 20 s after that, so a busy day's
-- many summary rounds make one rollup, not one every round.
ALTER TABLE insight_day_dirty ADD COLUMN since timestamptz(3) NOT NULL DEFAULT now();
