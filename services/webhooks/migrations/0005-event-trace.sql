-- The trace context an event arrived with (its NATS `traceparent` header; docs/decisions.md,
-- "Traces"), so each delivery attempt, made later by the dispatcher, is a span of the payment's
-- trace. Never part of the body a merchant receives. NULL while tracing is off.
ALTER TABLE events ADD COLUMN traceparent text;
