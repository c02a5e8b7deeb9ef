-- Outbox holds (services/platform/outbox.ts, outboxRow's holdMs; docs/decisions/2026-12-07-one-message-per-synchronous-outcome.md).
-- A row may be held until this time, by the database's clock: the relay claims it then, or as soon
-- as a later event of its aggregate is written, so the two are published as one message. NULL:
-- due at once, as every row before.
ALTER TABLE outbox ADD COLUMN held_until timestamptz;
