-- Outbox isolation (services/shared/outbox.ts; docs/decisions.md, "No event blocks another").
-- Each row names its aggregate and keeps its own publish attempts, so an event the bus refuses is
-- retried with backoff and then parked here, with its error, while other aggregates' events pass.
ALTER TABLE outbox
  ADD COLUMN aggregate_id    text,
  ADD COLUMN seq             bigint,
  ADD COLUMN attempts        integer NOT NULL DEFAULT 0,
  ADD COLUMN last_error      text,
  ADD COLUMN next_attempt_at timestamptz,
  ADD COLUMN parked_at       timestamptz;

-- The relay's order is insertion order. One aggregate's changes are serialised by its row lock,
-- so within an aggregate that is commit order, whatever the clocks of the replicas say.
CREATE SEQUENCE outbox_seq OWNED BY outbox.seq;

-- Existing rows keep their old order (created_at, event_id) and get their aggregate by the rule
-- of aggregateIdOf in services/shared/events.ts: a refund's events belong to its payment.
UPDATE outbox o
SET seq = ordered.n,
    aggregate_id = CASE
      WHEN o.type LIKE 'refund.%' AND o.payload->'data'->'object'->>'payment_id' IS NOT NULL
        THEN o.payload->'data'->'object'->>'payment_id'
      ELSE coalesce(o.payload->'data'->'object'->>'id', o.event_id)
    END
FROM (SELECT event_id, row_number() OVER (ORDER BY created_at, event_id) AS n FROM outbox) ordered
WHERE o.event_id = ordered.event_id;
SELECT setval('outbox_seq', coalesce((SELECT max(seq) FROM outbox), 0) + 1, false);
ALTER TABLE outbox
  ALTER COLUMN seq SET DEFAULT nextval('outbox_seq'),
  ALTER COLUMN seq SET NOT NULL,
  ALTER COLUMN aggregate_id SET NOT NULL;

DROP INDEX outbox_unpublished;
-- What the relay claims, oldest first.
CREATE INDEX outbox_pending ON outbox (seq) WHERE published_at IS NULL AND parked_at IS NULL;
-- "Is an earlier event of this aggregate still unpublished?", asked for every claimed row.
CREATE INDEX outbox_pending_aggregate ON outbox (aggregate_id, seq) WHERE published_at IS NULL;
-- "... one that has failed before?": few rows, so a backlog is never scanned to answer it.
CREATE INDEX outbox_retrying ON outbox (aggregate_id, seq) WHERE published_at IS NULL AND attempts > 0;
-- The dead letters operators list (svc dead-letter list).
CREATE INDEX outbox_parked ON outbox (seq) WHERE parked_at IS NOT NULL;
