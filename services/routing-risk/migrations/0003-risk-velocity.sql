-- Velocity rules count earlier decisions per customer and per device. Only SHA-256 digests are
-- kept: the rules need equality, not the email or IP address itself.
ALTER TABLE risk_decisions
  ADD COLUMN customer_key_hash       text,
  ADD COLUMN device_fingerprint_hash text,
  ADD COLUMN device_ip_hash          text;

CREATE INDEX risk_decisions_customer ON risk_decisions (merchant_id, project_id, mode, customer_key_hash, created_at)
  WHERE customer_key_hash IS NOT NULL;
CREATE INDEX risk_decisions_fingerprint ON risk_decisions (merchant_id, project_id, mode, device_fingerprint_hash, created_at)
  WHERE device_fingerprint_hash IS NOT NULL;
CREATE INDEX risk_decisions_ip ON risk_decisions (merchant_id, project_id, mode, device_ip_hash, created_at)
  WHERE device_ip_hash IS NOT NULL;
