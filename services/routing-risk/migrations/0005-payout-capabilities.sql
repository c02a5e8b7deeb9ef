-- What each provider can pay out to, and its price for a payout. A provider sends
-- payouts once it has a row here: routing sends a live payout only to the project's connected live
-- accounts whose provider has one, a test payout to the demo providers and test accounts as before.
CREATE TABLE payout_capabilities (
  provider_id       text PRIMARY KEY REFERENCES providers (id),
  -- The contract's destination types: bank_account, wallet, card_token.
  destination_types text[] NOT NULL CHECK (cardinality(destination_types) > 0),
  fee_fixed         bigint NOT NULL DEFAULT 0 CHECK (fee_fixed >= 0),
  fee_bps           integer NOT NULL DEFAULT 0 CHECK (fee_bps >= 0)
);

-- The demo providers' capabilities as they were in code; Stripe pays out a Stripe account's
-- balance to its external accounts (bank accounts and debit cards) at no per-payout price of its
-- own for standard payouts. Adyen's payouts need its Balance Platform, which a Checkout account's
-- credentials do not reach: no row (docs/connectors.md, "Payouts").
INSERT INTO payout_capabilities (provider_id, destination_types, fee_fixed, fee_bps) VALUES
  ('prv_demo_alpha', '{card_token,wallet}', 25, 0),
  ('prv_demo_beta',  '{bank_account}', 20, 0),
  ('prv_demo_gamma', '{bank_account,wallet,card_token}', 15, 50),
  ('prv_stripe',     '{bank_account,card_token}', 0, 0)
ON CONFLICT DO NOTHING;
