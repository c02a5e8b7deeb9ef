-- A/B arms of routing rules.

-- A rule's variant arm ({"share": 0.01..0.5, "strategy": {...}}; NULL: no experiment), and when its
-- strategy or variant last changed: the report counts payments decided since then.
ALTER TABLE routing_rules
  ADD COLUMN variant jsonb,
  ADD COLUMN experiment_since timestamptz;
UPDATE routing_rules SET experiment_since = created_at;
ALTER TABLE routing_rules ALTER COLUMN experiment_since SET NOT NULL;

-- The arm a merchant rule's decision was ranked by: 'control' (the rule's strategy) or 'variant';
-- NULL for the built-in default rule and decisions from before this migration.
ALTER TABLE routing_decisions ADD COLUMN arm text;

-- The report reads one rule's decisions since its experiment began.
CREATE INDEX routing_decisions_rule ON routing_decisions (rule_id, created_at) WHERE arm IS NOT NULL;
-- ...and their payments' outcomes.
CREATE INDEX attempt_outcomes_payment ON attempt_outcomes (payment_id);
