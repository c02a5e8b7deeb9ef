-- A transaction's net_amount says what it moved for the merchant: amount - fee_amount, or 0 when
-- it failed (a failed movement keeps its attempted amount, for monitoring, but moved nothing).
-- The database derives it, so no insert can store another figure, and a settlement that fails
-- its fee and adjustment transactions zeroes their nets with their status (docs/ledger.md,
-- "Fees and nets"). Dropping the column drops its old check (net = amount - fee) with it.
ALTER TABLE transactions DROP COLUMN net_amount;
ALTER TABLE transactions ADD COLUMN net_amount bigint NOT NULL
  GENERATED ALWAYS AS (CASE WHEN status = 'failed' THEN 0 ELSE amount - fee_amount END) STORED;
