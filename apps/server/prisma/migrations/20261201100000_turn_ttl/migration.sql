-- Handed-out TURN credentials last minutes, not hours (issue 58): a TURN server checks them only when an
-- allocation is made, so a call keeps its relay past their expiry, and one that leaks from a page is good
-- for minutes. Settings made before keep their servers and secret, at the new longest lifetime.
ALTER TABLE project_turn ALTER COLUMN ttl_s SET DEFAULT 300;
UPDATE project_turn SET ttl_s = 600 WHERE ttl_s > 600;
ALTER TABLE project_turn DROP CONSTRAINT project_turn_ttl_s_check;
ALTER TABLE project_turn ADD CONSTRAINT project_turn_ttl_s_check CHECK (ttl_s BETWEEN 60 AND 600);
