-- Refunds of captured payments (services/payments/refunds.ts). A refund row is written in status
-- `processing` before the provider is called, so its amount counts against the payment's
-- refundable rest while the call is in flight.
CREATE TABLE refunds (
  id                  text PRIMARY KEY,
  payment_id          text NOT NULL REFERENCES payments (id),
  merchant_id         text NOT NULL,
  project_id          text NOT NULL,
  mode                text NOT NULL CHECK (mode IN ('test', 'live')),
  amount              bigint NOT NULL CHECK (amount > 0),
  currency            text NOT NULL,
  status              text NOT NULL CHECK (status IN ('created', 'processing', 'successful', 'failed')),
  reason              text,
  metadata            jsonb NOT NULL DEFAULT '{}',
  provider_refund_id  text,
  failure             jsonb,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL
);
CREATE INDEX refunds_payment ON refunds (payment_id, id DESC);
CREATE INDEX refunds_scope ON refunds (merchant_id, project_id, mode, id DESC);
-- Refunds whose provider outcome never arrived, for reconciliation.
CREATE INDEX refunds_in_flight ON refunds (updated_at) WHERE status IN ('created', 'processing');
