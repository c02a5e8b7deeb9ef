-- The record of finished attempts (deliveries.ts, complete()), unchanged in what it does, moved into
-- a function for its SET clauses, as claim_deliveries is: during a burst the statistics of
-- deliveries are stale (the table grew by thousands of rows since autovacuum last analysed it),
-- and a planner that believes it holds a few hundred rows joins the batch's attempts to it by
-- reading every row of it, which made each record cost as much as the whole table. Here it can
-- only fetch each delivery and endpoint by primary key. jit = off for the reason claim_deliveries
-- gives.
CREATE FUNCTION complete_deliveries(
  at timestamptz, delivery_ids text[], attempts int[], statuses text[], next_attempts timestamptz[],
  response_statuses int[], errors text[], attempt_ids text[], manuals bool[], started timestamptz[],
  durations int[], request_headers text[], response_bodies text[], endpoint_ids text[], oks bool[],
  throttled timestamptz[]
) RETURNS SETOF text
LANGUAGE sql VOLATILE
SET enable_seqscan = off SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off
SET jit = off
AS $$
  WITH input AS (
    SELECT * FROM unnest(delivery_ids, attempts, statuses, next_attempts, response_statuses, errors, attempt_ids,
      manuals, started, durations, request_headers, response_bodies, endpoint_ids, oks, throttled)
      AS t(delivery_id, attempt, status, next_attempt_at, response_status, error, attempt_id, manual, started_at,
        duration_ms, request_headers, response_body, endpoint_id, ok, throttled_until)
  ), health AS (
    UPDATE endpoints e SET
      failing_since = CASE WHEN h.last_ok IS NULL THEN COALESCE(e.failing_since, h.first_fail)
        ELSE (SELECT min(i.started_at) FROM input i
              WHERE i.endpoint_id = h.endpoint_id AND NOT i.ok AND i.started_at > h.last_ok) END,
      last_failed_at = GREATEST(e.last_failed_at, h.last_fail),
      retry_after_until = GREATEST(e.retry_after_until, h.retry_until)
    FROM (
      SELECT endpoint_id, max(started_at) FILTER (WHERE ok) AS last_ok,
        min(started_at) FILTER (WHERE NOT ok) AS first_fail, max(started_at) FILTER (WHERE NOT ok) AS last_fail,
        max(throttled_until) AS retry_until
      FROM input GROUP BY endpoint_id
    ) h
    WHERE e.id = h.endpoint_id
      AND (h.last_fail IS NOT NULL OR h.retry_until IS NOT NULL OR e.failing_since IS NOT NULL)
  ), recorded AS (
    INSERT INTO delivery_attempts (id, delivery_id, attempt_number, manual, started_at, duration_ms,
      request_headers, response_status, response_body, error, outcome, next_attempt_at)
    SELECT attempt_id, delivery_id, attempt, manual, started_at, duration_ms, request_headers::jsonb,
      response_status, response_body, error, status, next_attempt_at
    FROM input
  )
  UPDATE deliveries d SET status = COALESCE(i.status, d.status),
    -- A retry for an endpoint disabled meanwhile waits, parked, until it is enabled.
    next_attempt_at = CASE WHEN i.status IS NULL THEN d.next_attempt_at
      WHEN i.next_attempt_at IS NOT NULL AND NOT (SELECT e.enabled FROM endpoints e WHERE e.id = d.endpoint_id)
      THEN 'infinity' ELSE i.next_attempt_at END,
    last_response_status = CASE WHEN i.status IS NULL THEN d.last_response_status ELSE i.response_status END,
    last_error = CASE WHEN i.status IS NULL THEN d.last_error ELSE i.error END,
    resend_until = CASE WHEN i.manual THEN NULL ELSE d.resend_until END,
    scheduled_attempts = d.scheduled_attempts - CASE WHEN i.throttled_until IS NOT NULL AND NOT i.manual THEN 1 ELSE 0 END,
    updated_at = at
  FROM input i
  WHERE d.id = i.delivery_id AND d.attempt_count = i.attempt
    AND CASE WHEN i.manual THEN d.resend_until IS NOT NULL ELSE d.status = 'delivering' END
  RETURNING d.id
$$;
