-- One row per (API key, Idempotency-Key): the claim of the request running under the key, then
-- the response it produced. Times come from the gateway's clock, never now(), so tests move time.
CREATE TABLE idempotency_keys (
  api_key_id       text NOT NULL REFERENCES api_keys (id),
  idempotency_key  text NOT NULL,
  -- SHA-256 of method, path and canonical JSON body: a reuse with another body is refused.
  request_hash     text NOT NULL,
  state            text NOT NULL CHECK (state IN ('in_progress', 'completed')),
  -- Fencing token of the claim: only the request holding it may complete or release the row,
  -- so a request outliving its lock cannot overwrite the retry that took the key over.
  locked_by        text,
  locked_until     timestamptz,
  response_status  integer,
  response_body    text,
  expires_at       timestamptz NOT NULL,
  created_at       timestamptz NOT NULL,
  PRIMARY KEY (api_key_id, idempotency_key),
  CHECK (state = 'in_progress' OR (response_status IS NOT NULL AND response_body IS NOT NULL))
);
-- Expired rows are deleted in batches by expiry.
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
