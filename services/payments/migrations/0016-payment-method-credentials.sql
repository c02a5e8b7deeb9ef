-- A stored payment method's credentials: one or more provider tokens, each usable at its
-- issuing provider only (and at one account there when the token is account-bound), and at most
-- one vault reference, which a connected vault forwards to other providers. Card data never
-- arrives here: a token is a provider's or a vault's reference to the card. The token, like
-- payment_methods.provider_token before it, leaves payments only towards a connector.
CREATE TABLE payment_method_credentials (
  id                  text PRIMARY KEY,
  payment_method_id   text NOT NULL REFERENCES payment_methods (id),
  merchant_id         text NOT NULL,
  project_id          text NOT NULL,
  mode                text NOT NULL CHECK (mode IN ('test', 'live')),
  kind                text NOT NULL CHECK (kind IN ('provider_token', 'vault_token')),
  -- provider_token: the issuing provider's code (null only for a method stored without one, before
  -- this table, which any account may then be sent as before in test mode); vault_token: null.
  provider_code       text,
  provider_account_id text,
  -- vault_token: the vault's code (stripe_forwarding, basis_theory); provider_token: null.
  vault_code          text,
  token               text NOT NULL,
  created_at          timestamptz NOT NULL,
  CHECK ((kind = 'vault_token') = (vault_code IS NOT NULL))
);
CREATE INDEX payment_method_credentials_method ON payment_method_credentials (payment_method_id, id);
CREATE UNIQUE INDEX payment_method_credentials_one_vault ON payment_method_credentials (payment_method_id)
  WHERE kind = 'vault_token';

-- Every method stored before this table keeps its one token as its first credential.
INSERT INTO payment_method_credentials (id, payment_method_id, merchant_id, project_id, mode, kind, provider_code,
  token, created_at)
SELECT 'pmc_' || substr(id, 4), id, merchant_id, project_id, mode, 'provider_token', provider_code, provider_token, created_at
FROM payment_methods;

-- The credentials table is the token's one home from now on.
ALTER TABLE payment_methods ALTER COLUMN provider_token DROP NOT NULL;
-- The card scheme's id of the last customer-present payment with this method (Stripe's
-- network_transaction_id, Adyen's networkTxReference): a card's, whichever provider returned it.
ALTER TABLE payment_methods ADD COLUMN network_transaction_id text;
