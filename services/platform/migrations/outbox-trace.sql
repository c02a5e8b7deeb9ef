-- Trace context of an event (docs/decisions.md, "Traces"): the W3C traceparent of the request that
-- wrote it, published as a NATS message header so consumers continue that trace. Internal only: it
-- is not part of the event's payload, so it never reaches a merchant. NULL while tracing is off.
ALTER TABLE outbox ADD COLUMN traceparent text;
