-- The licensed providers that have connectors in this codebase. What they serve is the
-- widest an account may claim; an account narrows it with its own lists (docs/connectors.md).
INSERT INTO providers (id, code, name, kind, currencies, countries, methods) VALUES
  ('prv_stripe', 'stripe', 'Stripe', 'licensed', '{}', '{}', '{card,wallet}'),
  ('prv_adyen',  'adyen',  'Adyen',  'licensed', '{}', '{}', '{card,wallet}')
ON CONFLICT DO NOTHING;

-- A connected account's own settings. Empty lists mean "what the provider serves"; name is NULL
-- for the platform's demo accounts and rows inserted by hand before the management API existed.
ALTER TABLE provider_accounts
  ADD COLUMN name       text,
  ADD COLUMN methods    text[] NOT NULL DEFAULT '{}',
  ADD COLUMN currencies text[] NOT NULL DEFAULT '{}',
  ADD COLUMN countries  text[] NOT NULL DEFAULT '{}',
  ADD COLUMN updated_at timestamptz;

-- One name per project and mode, so a connect retried after a lost answer cannot make a second account.
CREATE UNIQUE INDEX provider_accounts_name ON provider_accounts (project_id, mode, name) WHERE name IS NOT NULL;
CREATE INDEX provider_accounts_project ON provider_accounts (project_id, created_at) WHERE project_id IS NOT NULL;
