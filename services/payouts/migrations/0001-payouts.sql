-- Payouts (docs/ledger.md, "Payouts"). Every row carries merchant_id, project_id and mode.
CREATE TABLE payouts (
  id                       text PRIMARY KEY,
  merchant_id              text NOT NULL,
  project_id               text NOT NULL,
  mode                     text NOT NULL CHECK (mode IN ('test', 'live')),
  status                   text NOT NULL CHECK (status IN ('created', 'pending', 'processing', 'successful', 'failed', 'cancelled')),
  amount                   bigint NOT NULL CHECK (amount > 0),
  currency                 text NOT NULL,
  destination_type         text NOT NULL,
  -- The provider's beneficiary token; never shown (docs/ledger.md).
  destination_token        text,
  destination_display      text NOT NULL,
  destination_holder_name  text,
  destination_country      text,
  description              text,
  reference                text,
  metadata                 jsonb NOT NULL DEFAULT '{}',
  test_scenario            text,
  provider_id              text,
  provider_code            text,
  provider_name            text,
  provider_account_id      text,
  provider_payout_id       text,
  routing_rule             text,
  fee_amount               bigint NOT NULL DEFAULT 0,
  failure                  jsonb,
  -- Queued payouts are sent once this passes (the cancellation window, PAYOUT_HOLD_MS).
  send_after               timestamptz NOT NULL,
  sent_at                  timestamptz,
  created_at               timestamptz NOT NULL,
  updated_at               timestamptz NOT NULL
);
CREATE INDEX payouts_scope ON payouts (merchant_id, project_id, mode, id DESC);
CREATE INDEX payouts_due ON payouts (send_after) WHERE status = 'created';
-- Sent but never answered (a time-out, a crash between claim and send), for reconciliation.
CREATE INDEX payouts_in_flight ON payouts (updated_at) WHERE status IN ('pending', 'processing');

-- What the payouts of a scope have committed of the settled funds, per currency: amount plus fee
-- of every payout queued, in flight or sent. Its row is also the lock that makes the funds check
-- and the insert of a payout one step, so two payouts never both spend the same funds.
CREATE TABLE payout_funds (
  merchant_id  text NOT NULL,
  project_id   text NOT NULL,
  mode         text NOT NULL,
  currency     text NOT NULL,
  committed    bigint NOT NULL DEFAULT 0 CHECK (committed >= 0),
  PRIMARY KEY (merchant_id, project_id, mode, currency)
);

-- Transactional outbox (services/shared/outbox.ts): payout.created, payout.successful, payout.failed.
CREATE TABLE outbox (
  event_id     text PRIMARY KEY,
  type         text NOT NULL,
  merchant_id  text NOT NULL,
  project_id   text NOT NULL,
  mode         text NOT NULL,
  payload      jsonb NOT NULL,
  created_at   timestamptz NOT NULL,
  published_at timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (created_at, event_id) WHERE published_at IS NULL;
