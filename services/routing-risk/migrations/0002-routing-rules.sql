-- Named routing rules per project and mode (docs/decisions.md, "Routing rules").
CREATE TABLE routing_rules (
  id          text PRIMARY KEY,
  merchant_id text NOT NULL,
  project_id  text NOT NULL,
  mode        text NOT NULL CHECK (mode IN ('test', 'live')),
  name        text NOT NULL,
  priority    integer NOT NULL,
  -- Empty arrays and NULL bounds mean "any".
  currencies  text[] NOT NULL DEFAULT '{}',
  countries   text[] NOT NULL DEFAULT '{}',
  methods     text[] NOT NULL DEFAULT '{}',
  min_amount  bigint,
  max_amount  bigint,
  -- Provider codes or provider account ids, in the order to try them.
  providers   text[] NOT NULL CHECK (cardinality(providers) > 0),
  created_at  timestamptz NOT NULL,
  CHECK (min_amount IS NULL OR max_amount IS NULL OR min_amount <= max_amount),
  UNIQUE (merchant_id, project_id, mode, name)
);
CREATE INDEX routing_rules_scope ON routing_rules (merchant_id, project_id, mode, priority, name);

-- Which rule decided, by id: a name can be deleted and given to another rule later.
ALTER TABLE routing_decisions ADD COLUMN rule_id text;
