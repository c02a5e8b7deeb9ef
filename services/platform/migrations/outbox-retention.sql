-- Outbox retention (services/shared/outbox-retention.ts): published rows older than
-- OUTBOX_RETENTION_HOURS are deleted, oldest first, a batch at a time, found through this index.
-- Unpublished and parked rows have no published_at and are never deleted.
CREATE INDEX outbox_published ON outbox (published_at) WHERE published_at IS NOT NULL;
