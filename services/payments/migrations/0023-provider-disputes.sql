-- Providers' disputes (services/payments/provider-notifications/disputes.ts, jobs/dispute-sync.ts).
-- A dispute notification records the dispute it changed, or, unmatched, why (the provider's dispute
-- id and the payment it named), for the operator: never a body, a card number or a secret.
ALTER TABLE provider_notifications ADD COLUMN dispute_id text, ADD COLUMN note text;
CREATE INDEX provider_notifications_unmatched ON provider_notifications (received_at) WHERE effect = 'unmatched';

-- The scheduled dispute sync, one row per provider account, as settlement_syncs: a replica claims
-- a sync by moving due_at a whole interval ahead (the database's clock), and the next sync asks
-- the provider for what changed since the last one that succeeded.
CREATE TABLE dispute_syncs (
  provider_account_id  text PRIMARY KEY,
  due_at               timestamptz NOT NULL,
  claimed_at           timestamptz NOT NULL,
  -- The last sync that succeeded: when it started (the next asks from a little before it), how
  -- many notifications it read, and how many of them changed a dispute (none had told it).
  synced_at            timestamptz,
  listed               integer NOT NULL DEFAULT 0,
  found                integer NOT NULL DEFAULT 0,
  failed_at            timestamptz,
  last_error           text
);
