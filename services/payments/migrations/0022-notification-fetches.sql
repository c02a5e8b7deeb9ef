-- Notifications that are only a hint and are read by fetching from the provider (Mollie's `id=tr_…`,
-- provider-notifications/fetch-gate.ts): anyone may post them, so the fetches they cause are
-- coalesced per provider payment id and bounded per account, judged with the database's clock so
-- replicas share both.

-- One row per payment id posted to an account (only ids of the account's own attempts get one):
-- when a fetch for it last started, and whether a post came since that must be read after the window.
CREATE TABLE notification_fetches (
  provider_account_id text NOT NULL,
  provider_payment_id text NOT NULL,
  provider_code       text NOT NULL,
  fetched_at          timestamptz NOT NULL,
  again               boolean NOT NULL DEFAULT false,
  PRIMARY KEY (provider_account_id, provider_payment_id)
);
CREATE INDEX notification_fetches_again ON notification_fetches (fetched_at) WHERE again;
-- Rows with nothing left to read are forgotten an hour after their fetch.
CREATE INDEX notification_fetches_done ON notification_fetches (fetched_at) WHERE NOT again;

-- Fetches per account in the current second (unix seconds), across replicas: one conditional upsert a fetch.
CREATE TABLE notification_fetch_budgets (
  provider_account_id text PRIMARY KEY,
  window_second       bigint NOT NULL,
  used                integer NOT NULL
);
