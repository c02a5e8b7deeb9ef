-- Recovery of an endpoint (recovery.ts, recoveries.ts): one at a time per endpoint across replicas.
-- The row is the running recovery's lease, taken and renewed with the database's clock; a call
-- while it holds starts nothing and answers it. A finished or lapsed one is replaced by the next.
CREATE TABLE recoveries (
  endpoint_id text PRIMARY KEY REFERENCES endpoints (id) ON DELETE CASCADE,
  -- The replica's run that holds it: only that run renews, counts and finishes it.
  run_id text NOT NULL,
  since timestamptz NOT NULL,
  deliveries integer NOT NULL DEFAULT 0,
  resent integer NOT NULL DEFAULT 0,
  started_at timestamptz NOT NULL,
  lease_until timestamptz NOT NULL,
  finished_at timestamptz
);

-- When a recovery last took the delivery: another recovery leaves it alone for a while, so calls in a
-- row cannot multiply its requests.
ALTER TABLE deliveries ADD COLUMN recovered_at timestamptz;
