-- Providers known to the platform. Demo providers serve test mode; licensed ones are connected per account.
CREATE TABLE providers (
  id          text PRIMARY KEY,
  code        text NOT NULL UNIQUE,
  name        text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('demo', 'licensed')),
  -- Empty arrays mean "any".
  currencies  text[] NOT NULL DEFAULT '{}',
  countries   text[] NOT NULL DEFAULT '{}',
  methods     text[] NOT NULL,
  latency_ms  integer NOT NULL DEFAULT 0,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- An account at a provider. merchant_id/project_id NULL: the platform's shared demo account.
CREATE TABLE provider_accounts (
  id          text PRIMARY KEY,
  provider_id text NOT NULL REFERENCES providers (id),
  merchant_id text,
  project_id  text,
  mode        text NOT NULL CHECK (mode IN ('test', 'live')),
  status      text NOT NULL DEFAULT 'active',
  fee_fixed   bigint NOT NULL,
  fee_bps     integer NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX provider_accounts_scope ON provider_accounts (mode, project_id);

CREATE TABLE risk_decisions (
  id          text PRIMARY KEY,
  merchant_id text NOT NULL,
  project_id  text NOT NULL,
  mode        text NOT NULL,
  payment_id  text NOT NULL,
  score       integer NOT NULL,
  outcome     text NOT NULL,
  reasons     jsonb NOT NULL,
  created_at  timestamptz NOT NULL
);
CREATE INDEX risk_decisions_payment ON risk_decisions (merchant_id, project_id, mode, payment_id);

CREATE TABLE routing_decisions (
  id          text PRIMARY KEY,
  merchant_id text NOT NULL,
  project_id  text NOT NULL,
  mode        text NOT NULL,
  payment_id  text NOT NULL,
  rule        text NOT NULL,
  candidates  jsonb NOT NULL,
  created_at  timestamptz NOT NULL
);
CREATE INDEX routing_decisions_payment ON routing_decisions (merchant_id, project_id, mode, payment_id);

INSERT INTO providers (id, code, name, kind, currencies, countries, methods) VALUES
  ('prv_demo_alpha', 'demo_alpha', 'Demo Alpha', 'demo', '{}', '{}', '{card,wallet}'),
  ('prv_demo_beta',  'demo_beta',  'Demo Beta',  'demo', '{}', '{}', '{card,bank_transfer,open_banking}'),
  ('prv_demo_gamma', 'demo_gamma', 'Demo Gamma', 'demo', '{}', '{}', '{card,qr,instant,local,wallet}');

INSERT INTO provider_accounts (id, provider_id, mode, fee_fixed, fee_bps) VALUES
  ('pac_demo_alpha', 'prv_demo_alpha', 'test', 30, 290),
  ('pac_demo_beta',  'prv_demo_beta',  'test', 20, 250),
  ('pac_demo_gamma', 'prv_demo_gamma', 'test', 10, 300);
