-- Webhooks: endpoints, every event received, one delivery per (event, endpoint), every attempt.

CREATE TABLE endpoints (
  id text PRIMARY KEY,
  merchant_id text NOT NULL,
  project_id text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  url text NOT NULL,
  -- Event types, or '{*}' for all.
  events text[] NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  description text,
  -- 'plain:<whsec_...>' or 'aes256gcm:<iv>:<tag>:<ciphertext>' (see secret-box.ts).
  secret text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- Fan-out looks up the enabled endpoints of a scope for every event.
CREATE INDEX endpoints_scope ON endpoints (merchant_id, project_id, mode) WHERE enabled;

CREATE TABLE events (
  id text PRIMARY KEY,
  type text NOT NULL,
  merchant_id text NOT NULL,
  project_id text NOT NULL,
  mode text NOT NULL,
  -- The exact bytes every attempt sends: the contract's envelope, without the bus's scope fields.
  body text NOT NULL,
  created_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  -- Sample events of POST /v1/webhooks/test, which never travel on the bus.
  test boolean NOT NULL DEFAULT false
);

CREATE TABLE deliveries (
  id text PRIMARY KEY,
  event_id text NOT NULL REFERENCES events (id),
  endpoint_id text NOT NULL REFERENCES endpoints (id),
  merchant_id text NOT NULL,
  project_id text NOT NULL,
  mode text NOT NULL,
  event_type text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed', 'exhausted')),
  attempt_count integer NOT NULL DEFAULT 0,
  -- pending/failed: when the next attempt is due. delivering: when the claim's lease runs out,
  -- after which another dispatcher may take it over (its holder died mid-attempt).
  next_attempt_at timestamptz,
  last_response_status integer,
  last_error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (event_id, endpoint_id)
);
-- What the dispatchers claim from: work not finished, oldest due first. Deliveries of a disabled
-- endpoint are parked at 'infinity' (never due) and set due again when it is enabled.
CREATE INDEX deliveries_due ON deliveries (next_attempt_at)
  WHERE status IN ('pending', 'failed', 'delivering');
-- History lists: newest first within a scope.
CREATE INDEX deliveries_scope ON deliveries (merchant_id, project_id, mode, id DESC);

CREATE TABLE delivery_attempts (
  id text PRIMARY KEY,
  delivery_id text NOT NULL REFERENCES deliveries (id),
  attempt_number integer NOT NULL,
  manual boolean NOT NULL,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  request_headers jsonb NOT NULL,
  response_status integer,
  response_body text,
  error text,
  UNIQUE (delivery_id, attempt_number)
);

-- Delivery ids are made in the fan-out statement itself, one per matching endpoint, in the
-- format of services/shared/ids.ts (prefix, 10 characters of milliseconds, 16 random; Crockford
-- base32), so they sort by creation time like every other id.
CREATE FUNCTION new_id(prefix text, at timestamptz) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  alphabet CONSTANT text := '0123456789abcdefghjkmnpqrstvwxyz';
  ms bigint := floor(extract(epoch FROM at) * 1000);
  random bytea := decode(md5(gen_random_uuid()::text) || md5(gen_random_uuid()::text), 'hex');
  out text := '';
BEGIN
  FOR i IN 1..10 LOOP
    out := substr(alphabet, (ms % 32)::int + 1, 1) || out;
    ms := ms / 32;
  END LOOP;
  FOR i IN 0..15 LOOP
    out := out || substr(alphabet, (get_byte(random, i) & 31) + 1, 1);
  END LOOP;
  RETURN prefix || '_' || out;
END $$;

-- A dispatcher's claim (deliveries.ts explains the rules): the oldest due deliveries, at most
-- `per_endpoint` minus what this dispatcher has in flight there (`busy_*`) per endpoint, none of
-- the endpoints in `skip`, rows locked by another dispatcher skipped; they become `delivering`
-- until `lease_until`, returned with what an attempt needs. Due deliveries of disabled endpoints
-- met on the way are parked.
-- It is a function for its SET clauses: right after a burst the statistics are stale, and a
-- planner that believes few rows are due sorts all of them, or bitmap-scans the due index, on
-- every claim, which made each claim cost as much as the whole backlog. Here it can only walk
-- deliveries_due in order and fetch rows by primary key. Those settings make every other plan
-- look absurdly costly, which would set off JIT compilation (about half a second) on each call:
-- hence jit = off.
CREATE FUNCTION claim_deliveries(
  at timestamptz, max_rows int, per_endpoint int, busy_ids text[], busy_counts int[], lease_until timestamptz,
  skip text[]
) RETURNS TABLE (
  id text, endpoint_id text, event_id text, event_type text, mode text, attempt_count int, url text, secret text, body text
)
LANGUAGE sql VOLATILE
SET enable_sort = off SET enable_bitmapscan = off SET enable_seqscan = off SET jit = off
AS $$
  WITH window_ AS MATERIALIZED (
    SELECT w.id, w.endpoint_id, w.next_attempt_at, e.enabled
    FROM (
      SELECT d.id, d.endpoint_id, d.next_attempt_at FROM deliveries d
      WHERE d.status IN ('pending', 'failed', 'delivering') AND d.next_attempt_at <= at
        AND d.endpoint_id <> ALL (skip)
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
    FOR UPDATE SKIP LOCKED
  )
  UPDATE deliveries d
  SET status = 'delivering', attempt_count = d.attempt_count + 1, next_attempt_at = lease_until, updated_at = at
  WHERE d.id = ANY (ARRAY(SELECT id FROM claimed))
  RETURNING d.id, d.endpoint_id, d.event_id, d.event_type, d.mode, d.attempt_count,
    (SELECT e.url FROM endpoints e WHERE e.id = d.endpoint_id),
    (SELECT e.secret FROM endpoints e WHERE e.id = d.endpoint_id),
    (SELECT ev.body FROM events ev WHERE ev.id = d.event_id)
$$;
