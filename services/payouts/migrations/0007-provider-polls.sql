-- A payout its provider holds pending is asked again after growing waits (poll-schedule.ts): polls
-- counts the status queries that found it still pending, next_poll_at is when it is asked next.
-- NULL: not scheduled (an answer that never came), asked once it has waited abandonedAfterMs.
ALTER TABLE payouts ADD COLUMN polls integer NOT NULL DEFAULT 0;
ALTER TABLE payouts ADD COLUMN next_poll_at timestamptz;
CREATE INDEX payouts_next_poll ON payouts (next_poll_at) WHERE status IN ('pending', 'processing');
-- Provider notifications name a payout by the provider's id when they do not echo ours.
CREATE INDEX payouts_provider_payout ON payouts (provider_account_id, provider_payout_id) WHERE provider_payout_id IS NOT NULL;
