CREATE TABLE payments (
  id                   text PRIMARY KEY,
  merchant_id          text NOT NULL,
  project_id           text NOT NULL,
  mode                 text NOT NULL CHECK (mode IN ('test', 'live')),
  status               text NOT NULL,
  amount               bigint NOT NULL CHECK (amount > 0),
  currency             text NOT NULL,
  captured_amount      bigint NOT NULL DEFAULT 0,
  refunded_amount      bigint NOT NULL DEFAULT 0,
  capture_method       text NOT NULL,
  payment_method_type  text NOT NULL,
  payment_method_id    text,
  country              text,
  description          text,
  reference            text,
  customer             jsonb,
  metadata             jsonb NOT NULL DEFAULT '{}',
  return_url           text,
  test_scenario        text,
  provider_id          text,
  provider_code        text,
  provider_name        text,
  provider_account_id  text,
  provider_payment_id  text,
  attempt_count        integer NOT NULL DEFAULT 0,
  routing_decision_id  text,
  routing_rule         text,
  risk_decision_id     text,
  risk_score           integer,
  failure              jsonb,
  next_action          jsonb,
  fee_amount           bigint NOT NULL DEFAULT 0,
  processing_time_ms   integer,
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL,
  processed_at         timestamptz
);
CREATE INDEX payments_scope ON payments (merchant_id, project_id, mode, id DESC);

CREATE TABLE payment_attempts (
  id                   text PRIMARY KEY,
  payment_id           text NOT NULL REFERENCES payments (id),
  merchant_id          text NOT NULL,
  project_id           text NOT NULL,
  mode                 text NOT NULL,
  attempt_number       integer NOT NULL,
  status               text NOT NULL,
  outcome              text,
  provider_id          text NOT NULL,
  provider_code        text NOT NULL,
  provider_name        text,
  provider_account_id  text NOT NULL,
  provider_payment_id  text,
  provider_response_code text,
  provider_message     text,
  failure              jsonb,
  fee_amount           bigint NOT NULL DEFAULT 0,
  latency_ms           integer,
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL,
  UNIQUE (payment_id, attempt_number)
);

CREATE TABLE timeline_events (
  id           text PRIMARY KEY,
  payment_id   text NOT NULL REFERENCES payments (id),
  merchant_id  text NOT NULL,
  project_id   text NOT NULL,
  mode         text NOT NULL,
  type         text NOT NULL,
  title        text NOT NULL,
  description  text,
  attempt_id   text,
  data         jsonb NOT NULL DEFAULT '{}',
  created_at   timestamptz NOT NULL
);
CREATE INDEX timeline_events_payment ON timeline_events (payment_id, id);

-- Transactional outbox (services/shared/outbox.ts).
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
