-- Per-project IP allow-list (empty: no restriction) and per-key rate-limit ceiling (NULL: the deployment's).
ALTER TABLE projects ADD COLUMN ip_allowlist text[] NOT NULL DEFAULT '{}';
ALTER TABLE api_keys ADD COLUMN rate_limit_per_minute integer CHECK (rate_limit_per_minute > 0);
