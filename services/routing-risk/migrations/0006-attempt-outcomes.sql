-- What routing learns from: each attempt's settled outcome as payments announced it
-- (internal event attempt.settled), and running counts per account and segment that success-rate
-- routing reads. A row per event id makes a redelivered event change nothing; the counts move in
-- the same statement as the row, and only when the row is new.
CREATE TABLE attempt_outcomes (
  event_id            text PRIMARY KEY,
  attempt_id          text NOT NULL UNIQUE,
  payment_id          text NOT NULL,
  merchant_id         text NOT NULL,
  project_id          text NOT NULL,
  mode                text NOT NULL,
  provider_account_id text NOT NULL,
  provider_code       text NOT NULL,
  payment_method      text NOT NULL,
  currency            text NOT NULL,
  country             text,
  card_network        text,
  bin_range           text,
  status              text NOT NULL,
  outcome             text NOT NULL,
  failure_category    text,
  latency_ms          integer,
  settled_at          timestamptz NOT NULL,
  received_at         timestamptz NOT NULL
);
CREATE INDEX attempt_outcomes_account ON attempt_outcomes (provider_account_id, settled_at);

-- '' stands for "not known" in the segment's columns, which form the key.
CREATE TABLE attempt_outcome_counts (
  provider_account_id text NOT NULL,
  mode                text NOT NULL,
  payment_method      text NOT NULL,
  currency            text NOT NULL,
  country             text NOT NULL,
  card_network        text NOT NULL,
  succeeded           bigint NOT NULL DEFAULT 0,
  failed              bigint NOT NULL DEFAULT 0,
  -- Failures the provider caused (technical, timeout): what a success rate of the route weighs.
  failed_by_provider  bigint NOT NULL DEFAULT 0,
  latency_ms_sum      bigint NOT NULL DEFAULT 0,
  latency_count       bigint NOT NULL DEFAULT 0,
  last_settled_at     timestamptz NOT NULL,
  PRIMARY KEY (provider_account_id, mode, payment_method, currency, country, card_network)
);
