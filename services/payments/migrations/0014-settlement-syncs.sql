-- The scheduled settlement sync (services/payments/jobs/settlement-sync.ts), one row per provider
-- account: a replica claims a sync by moving due_at a whole interval ahead, so replicas never run
-- it twice, and what the last sync did stays here, so a restart does not do it again before it is due.
CREATE TABLE settlement_syncs (
  provider_account_id  text PRIMARY KEY,
  -- The next sync may be claimed from then on.
  due_at               timestamptz NOT NULL,
  claimed_at           timestamptz NOT NULL,
  -- The last sync that reached the ledger: when, the provider's batch references it handed over,
  -- and how many of them were new to the ledger.
  synced_at            timestamptz,
  synced_references    text[] NOT NULL DEFAULT '{}',
  created              integer NOT NULL DEFAULT 0,
  -- The last sync that failed, and why (the provider's or the ledger's message, never a credential).
  failed_at            timestamptz,
  last_error           text
);
