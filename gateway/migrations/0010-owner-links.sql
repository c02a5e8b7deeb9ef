-- One-time links that make whoever opens them an owner of a merchant (gateway/store/owner-links.ts):
-- the first `npm start` prints one for the merchant its test key belongs to, and an operator issues
-- another with `svc merchant sign-in-link`. Only the token's SHA-256 is stored; used_at is set in the
-- transaction that adds the owner, so a link works once, before expires_at.
CREATE TABLE owner_links (
  token_hash   text PRIMARY KEY,
  merchant_id  text NOT NULL REFERENCES merchants (id),
  created_by   text NOT NULL,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  used_at      timestamptz
);
CREATE INDEX owner_links_expiry ON owner_links (expires_at);
