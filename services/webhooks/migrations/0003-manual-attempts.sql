-- A manual resend is an extra attempt outside the retry schedule: it never moves the
-- schedule of a delivery still pending, and never fails a delivery that succeeded.
-- attempt_count keeps counting every attempt made (it numbers them, as svc-delivery-attempt);
-- scheduled_attempts counts the automatic ones, which the schedule and the attempt limit follow.
ALTER TABLE deliveries ADD COLUMN scheduled_attempts integer NOT NULL DEFAULT 0;
-- Until now a resend counted as a scheduled attempt: the schedules under way go on as they were.
UPDATE deliveries SET scheduled_attempts = attempt_count;
-- The lease of a resend's attempt under way: dispatchers leave the delivery alone meanwhile (never
-- sent twice at once), while its status and next_attempt_at stay the schedule's.
ALTER TABLE deliveries ADD COLUMN resend_until timestamptz;

-- What each attempt left its delivery in: succeeded, failed (next_attempt_at: the retry it
-- scheduled) or exhausted; null for a failed resend, which leaves the delivery as it was.
ALTER TABLE delivery_attempts ADD COLUMN outcome text CHECK (outcome IN ('succeeded', 'failed', 'exhausted'));
ALTER TABLE delivery_attempts ADD COLUMN next_attempt_at timestamptz;
-- Attempts made before: what they most likely did (a failed one was the last only if exhausted).
UPDATE delivery_attempts a SET outcome = CASE
    WHEN a.response_status BETWEEN 200 AND 299 THEN 'succeeded'
    WHEN d.status = 'exhausted' AND a.attempt_number = d.attempt_count THEN 'exhausted'
    ELSE 'failed' END
  FROM deliveries d WHERE d.id = a.delivery_id;

-- claim_deliveries of 0001, changed in two ways only: deliveries being resent are skipped, and a
-- claim counts a scheduled attempt too (returned as scheduled_attempts).
DROP FUNCTION claim_deliveries(timestamptz, int, int, text[], int[], timestamptz, text[]);
CREATE FUNCTION claim_deliveries(
  at timestamptz, max_rows int, per_endpoint int, busy_ids text[], busy_counts int[], lease_until timestamptz,
  skip text[]
) RETURNS TABLE (
  id text, endpoint_id text, event_id text, event_type text, mode text, attempt_count int, scheduled_attempts int,
  url text, secret text, body text
)
LANGUAGE sql VOLATILE
SET enable_sort = off SET enable_bitmapscan = off SET enable_seqscan = off SET jit = off
AS $$
  WITH window_ AS MATERIALIZED (
    SELECT w.id, w.endpoint_id, w.next_attempt_at, e.enabled
    FROM (
      SELECT d.id, d.endpoint_id, d.next_attempt_at FROM deliveries d
      WHERE d.status IN ('pending', 'failed', 'delivering') AND d.next_attempt_at <= at
        AND d.endpoint_id <> ALL (skip) AND NOT (d.resend_until IS NOT NULL AND d.resend_until > at)
      ORDER BY d.next_attempt_at
      LIMIT max_rows * 4 + 16
    ) w JOIN endpoints e ON e.id = w.endpoint_id
  ), parked AS (
    -- Fanned out or rescheduled while its endpoint was being disabled: parked like the rest.
    UPDATE deliveries d SET next_attempt_at = 'infinity', updated_at = at,
      status = CASE WHEN d.status = 'delivering' THEN 'failed' ELSE d.status END
    WHERE d.id = ANY (ARRAY(SELECT id FROM window_ WHERE NOT enabled))
      AND d.status IN ('pending', 'failed', 'delivering') AND d.next_attempt_at <= at
  ), ranked AS (
    SELECT w.id, w.next_attempt_at,
      row_number() OVER (PARTITION BY w.endpoint_id ORDER BY w.next_attempt_at) AS n,
      per_endpoint - COALESCE(b.busy, 0) AS room
    FROM window_ w
    LEFT JOIN unnest(busy_ids, busy_counts) AS b(endpoint_id, busy) ON b.endpoint_id = w.endpoint_id
    WHERE w.enabled
  ), claimed AS (
    SELECT d.id FROM deliveries d
    WHERE d.id = ANY (ARRAY(SELECT id FROM ranked WHERE n <= room ORDER BY next_attempt_at LIMIT max_rows))
      AND d.status IN ('pending', 'failed', 'delivering') AND d.next_attempt_at <= at
      AND NOT (d.resend_until IS NOT NULL AND d.resend_until > at)
    FOR UPDATE SKIP LOCKED
  )
  UPDATE deliveries d
  SET status = 'delivering', attempt_count = d.attempt_count + 1, scheduled_attempts = d.scheduled_attempts + 1,
    next_attempt_at = lease_until, updated_at = at
  WHERE d.id = ANY (ARRAY(SELECT id FROM claimed))
  RETURNING d.id, d.endpoint_id, d.event_id, d.event_type, d.mode, d.attempt_count, d.scheduled_attempts,
    (SELECT e.url FROM endpoints e WHERE e.id = d.endpoint_id),
    (SELECT e.secret FROM endpoints e WHERE e.id = d.endpoint_id),
    (SELECT ev.body FROM events ev WHERE ev.id = d.event_id)
$$;
