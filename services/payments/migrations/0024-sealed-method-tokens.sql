-- Stored methods' tokens are sealed under PROVIDER_SECRET_KEY from now on. The
-- sealing of rows stored before needs the key, which SQL has not: the payments part does it when it
-- starts with the key (payment-methods/store.ts, sealStoredTokens), finding them through this
-- index, which stays empty once they are all sealed.
CREATE INDEX IF NOT EXISTS payment_method_credentials_unsealed ON payment_method_credentials (id) WHERE token NOT LIKE 'aes256gcm:%';

-- Migration 0016 copied each method's token into its first credential and left the original here,
-- readable; nothing has read it since.
UPDATE payment_methods SET provider_token = NULL WHERE provider_token IS NOT NULL;
