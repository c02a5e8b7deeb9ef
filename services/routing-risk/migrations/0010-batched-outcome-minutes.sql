-- Learning's last cost: outcome_minutes are counted by the batched statement that claims the
-- outcome rows (outcome-store.ts), one grouped upsert per batch instead of three per row, and only
-- for scopes with a learning rule; so the per-row trigger of 0008 goes.
DROP TRIGGER attempt_outcomes_minute ON attempt_outcomes;
DROP FUNCTION count_outcome_minute();

-- Nothing read these counts (routing reads outcome_minutes); kept, they would go stale from here
-- on. attempt_outcomes still holds every outcome they were summed from.
DROP TABLE attempt_outcome_counts;
