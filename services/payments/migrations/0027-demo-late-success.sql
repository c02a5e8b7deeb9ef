-- A demo provider's share of late successes per segment (demo-behaviour/, docs/routing.md "The
-- sandbox"): 0, as every segment behaved before.
ALTER TABLE demo_behaviours ADD COLUMN late_success_rate double precision NOT NULL DEFAULT 0;
