-- The notifications (webhooks) licensed providers sent, one row per provider event and account:
-- the de-duplication key of services/payments/provider-notifications (a replay finds its row and
-- changes nothing), and the record of what each did. No body, header or signature is kept.
CREATE TABLE provider_notifications (
  provider_account_id  text NOT NULL,
  event_id             text NOT NULL,
  provider_code        text NOT NULL,
  -- payment, capture, cancel, refund or ignored (the connector's reading of the event).
  subject              text NOT NULL,
  -- applied (it moved the payment or refund), confirmed (it agrees with the state), ignored (it would
  -- move it backwards, or decides nothing), or unmatched (no payment or refund of this account).
  effect               text NOT NULL DEFAULT 'received',
  payment_id           text,
  refund_id            text,
  occurred_at          timestamptz NOT NULL,
  received_at          timestamptz NOT NULL,
  PRIMARY KEY (provider_account_id, event_id)
);
CREATE INDEX provider_notifications_payment ON provider_notifications (payment_id) WHERE payment_id IS NOT NULL;
-- Notifications name a payment or refund by the provider's id when they do not echo ours.
CREATE INDEX payment_attempts_provider_payment ON payment_attempts (provider_account_id, provider_payment_id)
  WHERE provider_payment_id IS NOT NULL;
CREATE INDEX refunds_provider_refund ON refunds (provider_refund_id) WHERE provider_refund_id IS NOT NULL;
