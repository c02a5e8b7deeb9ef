-- The ledger (docs/ledger.md). Every row carries merchant_id, project_id and mode.

-- Events already applied, by event id: the first half of idempotency (the unique constraints on
-- transactions are the second). A replay only bumps `redeliveries`, which monitoring can watch.
CREATE TABLE consumed_events (
  event_id     text PRIMARY KEY,
  type         text NOT NULL,
  consumed_at  timestamptz NOT NULL,
  redeliveries integer NOT NULL DEFAULT 0
);

CREATE TABLE settlements (
  id                    text PRIMARY KEY,
  merchant_id           text NOT NULL,
  project_id            text NOT NULL,
  mode                  text NOT NULL CHECK (mode IN ('test', 'live')),
  provider_account_id   text NOT NULL,
  provider_name         text,
  settlement_entity     text,
  settlement_reference  text NOT NULL,
  currency              text NOT NULL,
  gross_amount          bigint NOT NULL,
  fee_amount            bigint NOT NULL,
  net_amount            bigint NOT NULL CHECK (net_amount = gross_amount - fee_amount),
  transaction_count     integer NOT NULL,
  period_start          timestamptz NOT NULL,
  period_end            timestamptz NOT NULL,
  status                text NOT NULL CHECK (status IN ('pending', 'settled', 'failed')),
  settled_at            timestamptz,
  created_at            timestamptz NOT NULL,
  updated_at            timestamptz NOT NULL,
  -- A provider's batch reference names one batch: a report ingested twice is one settlement.
  UNIQUE (merchant_id, project_id, mode, provider_account_id, settlement_reference)
);
CREATE INDEX settlements_scope ON settlements (merchant_id, project_id, mode, id DESC);

CREATE TABLE transactions (
  id                   text PRIMARY KEY,
  merchant_id          text NOT NULL,
  project_id           text NOT NULL,
  mode                 text NOT NULL CHECK (mode IN ('test', 'live')),
  type                 text NOT NULL CHECK (type IN ('payment', 'refund', 'payout', 'fee', 'adjustment')),
  status               text NOT NULL CHECK (status IN ('pending', 'successful', 'failed')),
  entity_type          text NOT NULL,
  entity_id            text NOT NULL,
  payment_id           text,
  amount               bigint NOT NULL,
  currency             text NOT NULL,
  fee_amount           bigint NOT NULL,
  net_amount           bigint NOT NULL CHECK (net_amount = amount - fee_amount),
  provider_name        text,
  provider_account_id  text,
  provider_reference   text,
  payment_method       text,
  country              text,
  processing_time_ms   integer,
  failure_code         text,
  settlement_id        text REFERENCES settlements (id),
  occurred_at          timestamptz NOT NULL,
  -- The event it was recorded from (null for fees and adjustments of a settlement).
  source_event_id      text,
  recorded_at          timestamptz NOT NULL,
  -- One movement of each kind per entity: a second event about it (a replay under another id,
  -- a second replica) cannot record it twice.
  UNIQUE (merchant_id, project_id, mode, entity_type, entity_id, type)
);
CREATE INDEX transactions_scope ON transactions (merchant_id, project_id, mode, id DESC);
-- The demo providers' settlement cycle and report matching look for unsettled movements.
CREATE INDEX transactions_unsettled ON transactions (mode, occurred_at)
  WHERE settlement_id IS NULL AND status = 'successful' AND type IN ('payment', 'refund');
CREATE INDEX transactions_provider_reference ON transactions (merchant_id, project_id, mode, provider_reference);
CREATE INDEX transactions_settlement ON transactions (settlement_id) WHERE settlement_id IS NOT NULL;

-- What a settlement covered, kept even if the settlement later fails and its movements are
-- released for another batch.
CREATE TABLE settlement_items (
  settlement_id   text NOT NULL REFERENCES settlements (id),
  transaction_id  text NOT NULL REFERENCES transactions (id),
  PRIMARY KEY (settlement_id, transaction_id)
);

-- Double-entry journal. Amounts are signed: debits positive, credits negative; every entry sums
-- to zero in its one currency (checked at commit by the trigger below).
CREATE TABLE journal_entries (
  id              text PRIMARY KEY,
  merchant_id     text NOT NULL,
  project_id      text NOT NULL,
  mode            text NOT NULL,
  currency        text NOT NULL,
  -- payment, refund, payout, fee, adjustment or settlement.
  kind            text NOT NULL,
  transaction_id  text UNIQUE REFERENCES transactions (id),
  settlement_id   text REFERENCES settlements (id),
  posted_at       timestamptz NOT NULL,
  CHECK ((transaction_id IS NULL) <> (kind <> 'settlement'))
);
-- A settlement moves funds from the providers' side once, however often its report arrives.
CREATE UNIQUE INDEX journal_entries_settlement ON journal_entries (settlement_id) WHERE kind = 'settlement';

CREATE TABLE journal_lines (
  entry_id             text NOT NULL REFERENCES journal_entries (id),
  line_no              integer NOT NULL,
  merchant_id          text NOT NULL,
  project_id           text NOT NULL,
  mode                 text NOT NULL,
  currency             text NOT NULL,
  account              text NOT NULL CHECK (account IN (
    'provider_receivable', 'sales', 'adjustments', 'provider_fees', 'settled_funds', 'payouts', 'payout_fees')),
  provider_account_id  text,
  amount               bigint NOT NULL,
  PRIMARY KEY (entry_id, line_no)
);
CREATE INDEX journal_lines_scope ON journal_lines (merchant_id, project_id, mode, currency, account);

CREATE FUNCTION journal_entry_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  total bigint;
BEGIN
  SELECT coalesce(sum(amount), 0) INTO total FROM journal_lines WHERE entry_id = NEW.entry_id;
  IF total <> 0 THEN
    RAISE EXCEPTION 'journal entry % does not balance: debits and credits differ by %', NEW.entry_id, total;
  END IF;
  RETURN NULL;
END $$;

-- Deferred to commit, so an entry's lines may be written one by one.
CREATE CONSTRAINT TRIGGER journal_lines_balanced AFTER INSERT OR UPDATE ON journal_lines
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION journal_entry_balanced();

-- Transactional outbox (services/shared/outbox.ts): settlement.created.
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
