-- Registration confirmed by a mailed link (gateway/store/registrations.ts): the account and its
-- merchant exist only once the mailbox's owner opens the link, so registering reveals nothing about
-- an email that already has an account. The password is kept as its scrypt hash until then.
CREATE TABLE registrations (
  token_hash     text PRIMARY KEY,
  email          text NOT NULL,
  password_hash  text NOT NULL,
  merchant_name  text NOT NULL,
  created_at     timestamptz NOT NULL,
  expires_at     timestamptz NOT NULL
);
CREATE INDEX registrations_expiry ON registrations (expires_at);

-- Every mail the dashboard sends, one row per recipient and time (gateway/store/mail-throttle.ts),
-- so one address receives a bounded number per window whichever replica is asked.
CREATE TABLE mail_sends (
  email    text NOT NULL,
  sent_at  timestamptz NOT NULL
);
CREATE INDEX mail_sends_email ON mail_sends (email, sent_at);
CREATE INDEX mail_sends_time ON mail_sends (sent_at);

-- What the sweep (gateway/dashboard/sweep.ts) deletes by time.
CREATE INDEX password_resets_expiry ON password_resets (expires_at);
CREATE INDEX invitations_expiry ON invitations (expires_at);
CREATE INDEX sign_in_attempts_time ON sign_in_attempts (attempted_at);
-- One pending invitation per merchant and email: inviting again replaces it (its role, its link).
CREATE INDEX invitations_pending ON invitations (merchant_id, email) WHERE accepted_at IS NULL;
