-- The error answer of a failed call (4xx, 5xx) in the request log, so the dashboard can say why it
-- failed: the contract's code, message and param, redacted before they are written
-- (gateway/edge/request-log-redaction.ts). Kept as long as the call's row, and pruned with it.
ALTER TABLE request_log
  ADD COLUMN error_code text,
  ADD COLUMN error_message text,
  ADD COLUMN error_param text;
