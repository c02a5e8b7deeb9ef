-- The merchant dashboard's people and their sessions (gateway/dashboard/). Secrets a browser or a
-- mailbox holds (session cookies, reset and invitation links) are stored only as SHA-256 hashes;
-- passwords as scrypt hashes (gateway/dashboard/passwords.ts). Times come from the gateway's clock.
CREATE TABLE users (
  id             text PRIMARY KEY,
  -- Lower-cased and trimmed before it is stored, so uniqueness ignores case.
  email          text NOT NULL UNIQUE,
  password_hash  text NOT NULL,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);

CREATE TABLE memberships (
  user_id      text NOT NULL REFERENCES users (id),
  merchant_id  text NOT NULL REFERENCES merchants (id),
  role         text NOT NULL CHECK (role IN ('owner', 'developer', 'read_only')),
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (user_id, merchant_id)
);
CREATE INDEX memberships_merchant ON memberships (merchant_id, created_at);

-- A signed-in browser: which merchant, project and mode it looks at. Ends at expires_at, or earlier
-- when unused for the idle limit (last_seen_at), or when signed out (the row is deleted).
CREATE TABLE sessions (
  id            text PRIMARY KEY,
  token_hash    text NOT NULL UNIQUE,
  user_id       text NOT NULL REFERENCES users (id),
  merchant_id   text NOT NULL REFERENCES merchants (id),
  project_id    text NOT NULL REFERENCES projects (id),
  mode          text NOT NULL DEFAULT 'test' CHECK (mode IN ('test', 'live')),
  created_at    timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

CREATE TABLE invitations (
  id           text PRIMARY KEY,
  merchant_id  text NOT NULL REFERENCES merchants (id),
  email        text NOT NULL,
  role         text NOT NULL CHECK (role IN ('owner', 'developer', 'read_only')),
  token_hash   text NOT NULL UNIQUE,
  invited_by   text NOT NULL REFERENCES users (id),
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  accepted_at  timestamptz
);
CREATE INDEX invitations_merchant ON invitations (merchant_id, created_at);

-- Single use: used_at is set in the transaction that changes the password.
CREATE TABLE password_resets (
  token_hash  text PRIMARY KEY,
  user_id     text NOT NULL REFERENCES users (id),
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
CREATE INDEX password_resets_user ON password_resets (user_id);

-- Sign-in attempts per (email, client address), one row each, taken before the password is checked
-- (gateway/store/sign-in-throttle.ts); older than the window they are deleted in passing, and a
-- successful sign-in clears its pair.
CREATE TABLE sign_in_attempts (
  email         text NOT NULL,
  ip            text NOT NULL,
  attempted_at  timestamptz NOT NULL
);
CREATE INDEX sign_in_attempts_pair ON sign_in_attempts (email, ip, attempted_at);

-- Business verification as the merchant submitted it: company details and references to documents
-- held elsewhere (never the documents). merchants.verification_status stays the gate for live keys.
CREATE TABLE verification_submissions (
  id                   text PRIMARY KEY,
  merchant_id          text NOT NULL REFERENCES merchants (id),
  company_name         text NOT NULL,
  registration_number  text NOT NULL,
  country              text NOT NULL,
  documents            text[] NOT NULL,
  status               text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  submitted_by         text NOT NULL REFERENCES users (id),
  created_at           timestamptz NOT NULL,
  decided_at           timestamptz
);
CREATE INDEX verification_submissions_merchant ON verification_submissions (merchant_id, created_at);
