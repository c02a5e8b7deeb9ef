-- The accounts a routing decision left out because the payment's credential does not reach them,
-- as [{provider_account_id, reason}], so a decision says why a provider was never tried.
ALTER TABLE routing_decisions ADD COLUMN skipped jsonb NOT NULL DEFAULT '[]';
