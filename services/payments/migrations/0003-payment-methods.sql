-- Stored, provider-tokenised payment methods (POST /v1/payment-methods). The provider token is
-- what a connector charges; it is kept here and never returned by the API.
CREATE TABLE payment_methods (
  id             text PRIMARY KEY,
  merchant_id    text NOT NULL,
  project_id     text NOT NULL,
  mode           text NOT NULL CHECK (mode IN ('test', 'live')),
  type           text NOT NULL,
  provider_token text NOT NULL,
  provider_code  text,
  customer_id    text,
  customer       jsonb,
  display        jsonb NOT NULL DEFAULT '{}',
  status         text NOT NULL DEFAULT 'active',
  created_at     timestamptz NOT NULL
);
CREATE INDEX payment_methods_scope ON payment_methods (merchant_id, project_id, mode, id DESC);
