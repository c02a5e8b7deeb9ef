-- How the sandbox's demo providers behave for a project, per provider and segment: read
-- by the demo connector per attempt, set through the management API, the CLI and the dashboard.
-- Test mode only: live payments never reach a demo provider.
CREATE TABLE demo_behaviours (
  merchant_id          text NOT NULL,
  project_id           text NOT NULL,
  mode                 text NOT NULL CHECK (mode = 'test'),
  provider_code        text NOT NULL,
  payment_method       text NOT NULL,
  currency             text NOT NULL,
  -- A country, or '*' for any: an exact country wins over '*'.
  country              text NOT NULL,
  approval_rate        double precision NOT NULL CHECK (approval_rate BETWEEN 0 AND 1),
  technical_error_rate double precision NOT NULL CHECK (technical_error_rate BETWEEN 0 AND 1),
  latency_ms           integer NOT NULL CHECK (latency_ms >= 0),
  outage_until         timestamptz,
  updated_at           timestamptz NOT NULL,
  PRIMARY KEY (project_id, mode, provider_code, payment_method, currency, country)
);
