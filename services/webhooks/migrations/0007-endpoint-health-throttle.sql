-- Endpoint health, throttles and notices (sweep.ts, throttle.ts, deliveries.ts complete()).

-- Health: since when every attempt to the endpoint has failed (NULL after a success) and its latest
-- failure; the sweep disables an endpoint failing for WEBHOOK_DISABLE_AFTER_HOURS.
ALTER TABLE endpoints ADD COLUMN failing_since timestamptz;
ALTER TABLE endpoints ADD COLUMN last_failed_at timestamptz;
-- Why it is disabled: 'manual' (a person) or 'failing' (the sweep), and when.
ALTER TABLE endpoints ADD COLUMN disabled_reason text CHECK (disabled_reason IN ('manual', 'failing'));
ALTER TABLE endpoints ADD COLUMN disabled_at timestamptz;
-- A disable the project's owners must be told of: the gateway takes it (with a lease, so a mail that
-- failed is tried again) and acknowledges it once mailed.
ALTER TABLE endpoints ADD COLUMN notice_pending boolean NOT NULL DEFAULT false;
ALTER TABLE endpoints ADD COLUMN notice_lease_until timestamptz;
CREATE INDEX endpoints_notices ON endpoints (id) WHERE notice_pending;
CREATE INDEX endpoints_failing ON endpoints (failing_since) WHERE enabled AND failing_since IS NOT NULL;

-- Throttle: at most max_per_second attempts start in one second (all replicas together). The row
-- keeps the current second (unix seconds) and the slots taken in it; NULL: no limit.
ALTER TABLE endpoints ADD COLUMN max_per_second integer CHECK (max_per_second > 0);
ALTER TABLE endpoints ADD COLUMN window_second bigint NOT NULL DEFAULT 0;
ALTER TABLE endpoints ADD COLUMN window_used integer NOT NULL DEFAULT 0;
-- A receiver's 429 with Retry-After: no attempt to the endpoint starts before this.
ALTER TABLE endpoints ADD COLUMN retry_after_until timestamptz;

-- Success rates over recent attempts, and the retention sweep of attempts.
CREATE INDEX delivery_attempts_started ON delivery_attempts (started_at);
-- Recovery: an endpoint's failed and exhausted deliveries created since a time.
CREATE INDEX deliveries_endpoint_unsuccessful ON deliveries (endpoint_id, created_at) WHERE status IN ('failed', 'exhausted');
