-- A provider's success that arrived after its attempt was recorded failed and the payment moved on
-- (late-charges/, docs/decisions.md "A late success"): the charge is returned at that provider, once
-- per attempt (the primary key), by a refund or, for held funds, a release. `returning` until the
-- provider accepts the return; reconciliation sends it again (same operation id) until then.
CREATE TABLE late_charges (
  attempt_id           text PRIMARY KEY,
  payment_id           text NOT NULL,
  merchant_id          text NOT NULL,
  project_id           text NOT NULL,
  mode                 text NOT NULL,
  provider_code        text NOT NULL,
  provider_account_id  text NOT NULL,
  provider_payment_id  text NOT NULL,
  amount               bigint NOT NULL,
  currency             text NOT NULL,
  held                 boolean NOT NULL,
  status               text NOT NULL CHECK (status IN ('returning', 'returned', 'return_refused')),
  provider_message     text,
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL
);
CREATE INDEX late_charges_returning ON late_charges (created_at) WHERE status = 'returning';
