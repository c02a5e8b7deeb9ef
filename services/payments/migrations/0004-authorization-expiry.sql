-- The expiry sweep looks for authorizations granted before a cutoff (store.ts AUTHORIZED_AT).
-- Partial: only payments held in authorized are indexed, a small set however many payments exist.
CREATE INDEX payments_authorized_since ON payments ((COALESCE(processed_at, updated_at)), id)
  WHERE status = 'authorized';
