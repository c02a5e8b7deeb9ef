-- The A/B report's failover cost (experiment-report.ts): an approved attempt's fee needs its amount.
-- Outcomes recorded before this migration have none and count no fee.
ALTER TABLE attempt_outcomes ADD COLUMN amount bigint;
