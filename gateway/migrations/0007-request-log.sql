-- When each API key was last used: written by the admission statement (store/rate-limits.ts) at
-- most once per key and clock minute, so it costs no extra round trip and few row writes.
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;

-- The dashboard's request log: the last calls to /v1 of each project and mode (store/request-log.ts
-- keeps about REQUEST_LOG_KEEP of them). Written after the response, in batches; never a body or a
-- query string, only the path (which holds resource ids, not secrets).
CREATE TABLE request_log (
  request_id      text PRIMARY KEY,
  project_id      text NOT NULL REFERENCES projects (id),
  mode            text NOT NULL,
  api_key_prefix  text NOT NULL,
  method          text NOT NULL,
  path            text NOT NULL,
  status          integer NOT NULL,
  duration_ms     integer NOT NULL,
  created_at      timestamptz NOT NULL
);
CREATE INDEX request_log_scope ON request_log (project_id, mode, created_at DESC, request_id DESC);
