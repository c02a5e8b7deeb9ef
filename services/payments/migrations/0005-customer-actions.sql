-- A provider's request for the customer's action (redirect, QR code, bank transfer details): one row
-- per attempt that answered requires_action. The sandbox hosted page finds its row by the action
-- token in its URL; only the token's SHA-256 is kept here, so this table alone opens no page.
-- token_hash is null for provider-hosted pages (live), which the provider resolves, not our page.
CREATE TABLE customer_actions (
  attempt_id    text PRIMARY KEY REFERENCES payment_attempts (id),
  payment_id    text NOT NULL REFERENCES payments (id),
  merchant_id   text NOT NULL,
  project_id    text NOT NULL,
  mode          text NOT NULL,
  token_hash    text UNIQUE,
  type          text NOT NULL CHECK (type IN ('redirect', 'qr_code', 'display_details')),
  -- What the provider quoted for the attempt; it becomes the attempt's fee only if the customer approves.
  fee_amount    bigint NOT NULL DEFAULT 0,
  expires_at    timestamptz NOT NULL,
  created_at    timestamptz NOT NULL,
  -- Set in the transaction that moves the payment on: approved, declined, expired or cancelled.
  completed_at  timestamptz,
  outcome       text
);
-- The expiry sweep looks for open actions past their expiry; completed ones leave this index.
CREATE INDEX customer_actions_open ON customer_actions (expires_at, payment_id) WHERE completed_at IS NULL;
CREATE INDEX customer_actions_payment ON customer_actions (payment_id);
