-- Per-key request counts for the sliding-window rate limit: one row per API key per clock minute
-- (UTC, window_start is the minute's first instant). Only the current and the previous minute are
-- ever read; the counting statement deletes a key's older rows, so a key keeps about two.
-- fillfactor leaves room on each page so the constant count updates stay HOT (no index churn).
CREATE TABLE rate_limit_windows (
  api_key_id    text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  window_start  timestamptz NOT NULL,
  count         integer NOT NULL CHECK (count >= 0),
  PRIMARY KEY (api_key_id, window_start)
) WITH (fillfactor = 70);
