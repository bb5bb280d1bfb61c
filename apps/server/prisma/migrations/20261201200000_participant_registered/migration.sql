-- When the server first heard of a participant, by its own clock (issue 58): the joined time is the
-- client's first sample's, which a wrong or forged clock may date days back, and the never-connected
-- alert measured its wait from that, firing at once. Participants made before count from now.
ALTER TABLE participant ADD COLUMN registered_at TIMESTAMPTZ(3) NOT NULL DEFAULT now();
