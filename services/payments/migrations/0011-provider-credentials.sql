-- Each connected provider account's credentials (services/payments/provider-credentials): the
-- provider's fields as one JSON object, sealed with AES-256-GCM under PROVIDER_SECRET_KEY. Only
-- field names are kept in the clear, to say what is stored without revealing it.
CREATE TABLE provider_credentials (
  provider_account_id text PRIMARY KEY,
  merchant_id         text NOT NULL,
  project_id          text NOT NULL,
  mode                text NOT NULL CHECK (mode IN ('test', 'live')),
  provider_code       text NOT NULL,
  fields              text[] NOT NULL,
  sealed              text NOT NULL CHECK (sealed LIKE 'aes256gcm:%'),
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL
);
