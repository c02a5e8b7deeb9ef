-- The event stream of `svc listen` (event-stream.ts) reads a scope's events by the transaction that
-- stored them: each row records its transaction id, and a poll returns the rows whose transaction
-- the previous poll's snapshot did not see. No event committed late (a slow batch, another replica,
-- a skewed clock) is skipped, which a cursor on received_at could not promise.
-- Added without a default first, so existing rows are not rewritten; they stay NULL and no stream
-- ever asks for them (a stream starts at its own snapshot).
ALTER TABLE events ADD COLUMN tx xid8;
ALTER TABLE events ALTER COLUMN tx SET DEFAULT pg_current_xact_id();
CREATE INDEX events_stream ON events (merchant_id, project_id, mode, tx) WHERE tx IS NOT NULL;
