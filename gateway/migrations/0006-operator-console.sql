-- The operator console of the dashboard (gateway/dashboard/operator-*.ts).

-- The address a change came from: the request's client, trusted proxies walked as the IP
-- allow-list does (gateway/edge/ip-allowlist.ts). Null for changes no request made (and older rows).
ALTER TABLE audit_log ADD COLUMN client_address text;
CREATE INDEX audit_log_created ON audit_log (id COLLATE "C" DESC);

-- A rejection's reason, shown to the merchant; decided_at (0005) says when either decision was taken.
ALTER TABLE verification_submissions ADD COLUMN decision_reason text;
CREATE INDEX verification_submissions_status ON verification_submissions (status, created_at);

-- A browser signed in with the deployment's OPERATOR_TOKEN. Only the cookie token's SHA-256 is kept;
-- the row never names a merchant or user, and a merchant's session is never one of these.
CREATE TABLE operator_sessions (
  token_hash    text PRIMARY KEY,
  created_at    timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  client_address text
);
CREATE INDEX operator_sessions_expiry ON operator_sessions (expires_at);
