-- GET /v1/events (events-api.ts): a scope's events newest first, by id (ids sort by emission time).
CREATE INDEX events_scope ON events (merchant_id, project_id, mode, id DESC);
-- The retention sweep (retention.ts) walks events oldest first.
CREATE INDEX events_created ON events (created_at);
