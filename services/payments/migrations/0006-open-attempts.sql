-- The reconciliation looks for attempts whose outcome is still open: `unknown` (the provider could
-- not tell) or still in flight long after any request could be waiting on them (its payments
-- process died mid-call). Partial: a small set however many attempts exist.
CREATE INDEX payment_attempts_open ON payment_attempts (updated_at, id)
  WHERE status = 'unknown' OR (status = 'processing' AND outcome IS NULL);

-- The account pricing the route planned for the attempt, so a later status query (reconciliation)
-- asks the provider with the same request as the attempt itself.
ALTER TABLE payment_attempts ADD COLUMN fee_fixed bigint, ADD COLUMN fee_bps integer;
