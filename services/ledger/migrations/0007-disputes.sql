-- Disputes move money (docs/ledger.md, "Disputes"): a withdrawal is a `dispute` transaction, a
-- reinstatement a `dispute_reversal`, both on the dispute (entity_type `dispute`). One dispute may
-- be withdrawn, reinstated and withdrawn again (a second chargeback), so its movements are told
-- apart by the movement's id (`dpm_…`, the producer's once-only key): uniqueness is per entity,
-- kind and movement. Every other kind happens once per entity and keeps movement_id '' (an empty
-- text, not NULL, so the unique constraint still admits one of them per entity and kind).
ALTER TABLE transactions DROP CONSTRAINT transactions_type_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_type_check
  CHECK (type IN ('payment', 'refund', 'payout', 'fee', 'adjustment', 'dispute', 'dispute_reversal'));

ALTER TABLE transactions ADD COLUMN movement_id text NOT NULL DEFAULT '';
ALTER TABLE transactions DROP CONSTRAINT transactions_merchant_id_project_id_mode_entity_type_entity_key;
ALTER TABLE transactions ADD CONSTRAINT transactions_one_movement
  UNIQUE (merchant_id, project_id, mode, entity_type, entity_id, type, movement_id);

-- The demo providers' cycle settles a sandbox dispute's movements with the payments and refunds.
DROP INDEX transactions_unsettled;
CREATE INDEX transactions_unsettled ON transactions (mode, occurred_at)
  WHERE settlement_id IS NULL AND status = 'successful' AND type IN ('payment', 'refund', 'dispute', 'dispute_reversal');

-- Settlement reports find a dispute's movements by the dispute's or its payment's reference.
CREATE INDEX transactions_disputes_of_payment ON transactions (merchant_id, project_id, mode, payment_id)
  WHERE entity_type = 'dispute';

-- The disputed amounts providers took back, less what they reinstated (a debit, like a refund's on sales).
ALTER TABLE journal_lines DROP CONSTRAINT journal_lines_account_check;
ALTER TABLE journal_lines ADD CONSTRAINT journal_lines_account_check CHECK (account IN (
  'provider_receivable', 'sales', 'adjustments', 'disputes', 'provider_fees', 'settled_funds', 'payouts', 'payout_fees'));
