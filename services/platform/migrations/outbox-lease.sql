-- Outbox leases (services/shared/outbox-claims.ts; docs/decisions.md, "The relay claims with a lease").
-- A relay claims a batch by setting leased_until in one statement and publishes outside any
-- transaction; other replicas pass over leased rows. A replica that dies mid-batch leaves its
-- rows leased until then, after which any replica claims them again (the bus drops the repeat).
ALTER TABLE outbox ADD COLUMN leased_until timestamptz;
