-- An account's health is read from its newest attempts in a payment's method and currency
-- (history-read.ts's healthColumn): one index range per account, newest first, so the planning
-- read stays one statement however many outcomes the account has.
CREATE INDEX attempt_outcomes_health
  ON attempt_outcomes (project_id, mode, provider_account_id, payment_method, currency, settled_at DESC);
