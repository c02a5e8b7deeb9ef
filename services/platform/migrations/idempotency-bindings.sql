-- Idempotency-Keys bound to the payment, refund, capture, cancel or payout they moved
-- (services/shared/idempotency-bindings.ts). Inserted in the commit that makes the resource durable,
-- before any provider is called: the primary key is what makes a retry find it instead of paying again.
CREATE TABLE idempotency_bindings (
  merchant_id      text NOT NULL,
  project_id       text NOT NULL,
  mode             text NOT NULL,
  idempotency_key  text NOT NULL,
  operation        text NOT NULL,
  fingerprint      text NOT NULL,
  resource_id      text NOT NULL,
  created_at       timestamptz NOT NULL,
  -- As long as the gateway keeps the key's response (IDEMPOTENCY_TTL_HOURS); then the key is free.
  expires_at       timestamptz NOT NULL,
  PRIMARY KEY (merchant_id, project_id, mode, idempotency_key)
);
CREATE INDEX idempotency_bindings_expiry ON idempotency_bindings (expires_at);
