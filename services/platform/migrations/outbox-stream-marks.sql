-- Where each published event went (services/platform/outbox-resend.ts; docs/decisions.md, "A
-- broker that comes back empty"): the creation time of the stream that acknowledged it (the
-- stream's identity) and its sequence there. The marks say, per stream, up to which sequence every
-- consumer had acknowledged everything: an event sent to a stream since lost is published again
-- unless a mark proves it was consumed.
ALTER TABLE outbox ADD COLUMN stream_created timestamptz, ADD COLUMN stream_seq bigint;
CREATE INDEX outbox_stream_created ON outbox (stream_created) WHERE stream_created IS NOT NULL;
CREATE TABLE outbox_stream_marks (
  stream_created timestamptz PRIMARY KEY,
  consumed_seq bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
