CREATE TABLE merchants (
  id                   text PRIMARY KEY,
  name                 text NOT NULL,
  -- Live keys exist only once business verification is approved.
  verification_status  text NOT NULL DEFAULT 'pending' CHECK (verification_status IN ('pending', 'approved')),
  verified_at          timestamptz,
  created_at           timestamptz NOT NULL
);

CREATE TABLE projects (
  id           text PRIMARY KEY,
  merchant_id  text NOT NULL REFERENCES merchants (id),
  name         text NOT NULL,
  created_at   timestamptz NOT NULL
);
CREATE INDEX projects_merchant ON projects (merchant_id);

-- Only a SHA-256 hash of the secret and a short display prefix are stored.
CREATE TABLE api_keys (
  id           text PRIMARY KEY,
  merchant_id  text NOT NULL REFERENCES merchants (id),
  project_id   text NOT NULL REFERENCES projects (id),
  mode         text NOT NULL CHECK (mode IN ('test', 'live')),
  name         text NOT NULL,
  prefix       text NOT NULL,
  secret_hash  text NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL,
  revoked_at   timestamptz
);
CREATE INDEX api_keys_project ON api_keys (project_id, created_at);

CREATE TABLE audit_log (
  id           text PRIMARY KEY,
  actor        text NOT NULL,
  action       text NOT NULL,
  merchant_id  text,
  project_id   text,
  target_id    text,
  data         jsonb NOT NULL DEFAULT '{}',
  created_at   timestamptz NOT NULL
);
CREATE INDEX audit_log_merchant ON audit_log (merchant_id, created_at);
