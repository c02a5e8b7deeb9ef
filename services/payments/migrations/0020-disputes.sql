-- Disputes and chargebacks (services/payments/disputes, docs/disputes.md). A dispute belongs to its
-- payment and is changed only by disputes/apply.ts, under the payment's row lock; the unique keys
-- below hold even without it, so a redelivered or concurrent provider view creates nothing twice.
CREATE TABLE disputes (
  id                    text PRIMARY KEY,
  payment_id            text NOT NULL REFERENCES payments (id),
  attempt_id            text,
  merchant_id           text NOT NULL,
  project_id            text NOT NULL,
  mode                  text NOT NULL CHECK (mode IN ('test', 'live')),
  provider_id           text,
  provider_code         text NOT NULL,
  provider_name         text,
  provider_account_id   text,
  provider_dispute_id   text NOT NULL,
  amount                bigint NOT NULL CHECK (amount > 0),
  currency              text NOT NULL,
  -- The provider's dispute fee, charged with each withdrawal (kept by the provider when reinstated).
  fee_amount            bigint NOT NULL CHECK (fee_amount >= 0),
  reason                text NOT NULL,
  provider_reason       text,
  stage                 text NOT NULL CHECK (stage IN ('inquiry', 'chargeback', 'pre_arbitration')),
  status                text NOT NULL CHECK (status IN (
                          'needs_response', 'under_review', 'won', 'lost', 'accepted', 'expired', 'cancelled')),
  evidence_due_by       timestamptz,
  funds_withdrawn       boolean NOT NULL DEFAULT false,
  -- Movements of its money so far: the next one's sequence is this + 1 (dispute_fund_movements).
  movements             integer NOT NULL DEFAULT 0,
  -- The newest provider view applied: its time and, where the provider numbers them, its sequence.
  provider_event_at     timestamptz NOT NULL,
  provider_sequence     bigint,
  -- Staged evidence (structured fields and document ids), and when it was submitted.
  evidence              jsonb NOT NULL DEFAULT '{}',
  evidence_submitted_at timestamptz,
  -- Sandbox only: when the demo provider decides the submitted evidence (jobs/sandbox-disputes.ts).
  decide_at             timestamptz,
  created_at            timestamptz NOT NULL,
  updated_at            timestamptz NOT NULL,
  UNIQUE (merchant_id, project_id, mode, provider_code, provider_dispute_id)
);
CREATE INDEX disputes_scope ON disputes (merchant_id, project_id, mode, id DESC);
CREATE INDEX disputes_payment ON disputes (payment_id, id);
CREATE INDEX disputes_decide ON disputes (decide_at) WHERE decide_at IS NOT NULL;

-- One row per change of a dispute, in order: what it became and what caused it.
CREATE TABLE dispute_history (
  dispute_id        text NOT NULL REFERENCES disputes (id),
  seq               integer NOT NULL,
  status            text NOT NULL,
  stage             text NOT NULL,
  funds_withdrawn   boolean NOT NULL,
  amount            bigint NOT NULL,
  -- provider (a notification, a sync, the sandbox's demo provider) or merchant (accept, evidence).
  source            text NOT NULL CHECK (source IN ('provider', 'merchant')),
  provider_event_at timestamptz,
  created_at        timestamptz NOT NULL,
  PRIMARY KEY (dispute_id, seq)
);

-- Each movement of a dispute's money, once: (dispute, sequence) is unique, and its id is the
-- internal.dispute.funds_moved event's id, which the ledger books once.
CREATE TABLE dispute_fund_movements (
  id          text PRIMARY KEY,
  dispute_id  text NOT NULL REFERENCES disputes (id),
  seq         integer NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('withdrawal', 'reinstatement')),
  amount      bigint NOT NULL CHECK (amount > 0),
  fee_amount  bigint NOT NULL CHECK (fee_amount >= 0),
  currency    text NOT NULL,
  created_at  timestamptz NOT NULL,
  UNIQUE (dispute_id, seq)
);

-- Evidence documents (PDF, PNG, JPEG, at most 4 MiB each), uploaded before they are named in evidence.
CREATE TABLE dispute_documents (
  id            text PRIMARY KEY,
  dispute_id    text NOT NULL REFERENCES disputes (id),
  merchant_id   text NOT NULL,
  project_id    text NOT NULL,
  mode          text NOT NULL,
  filename      text NOT NULL,
  content_type  text NOT NULL CHECK (content_type IN ('application/pdf', 'image/png', 'image/jpeg')),
  size          integer NOT NULL CHECK (size > 0 AND size <= 4194304),
  content       bytea NOT NULL,
  created_at    timestamptz NOT NULL
);
CREATE INDEX dispute_documents_dispute ON dispute_documents (dispute_id, id);

-- Sandbox: successful payments of the `dispute` scenario, and when the demo provider opens their
-- chargeback (jobs/sandbox-disputes.ts claims due rows by the database's clock).
CREATE TABLE sandbox_dispute_openings (
  payment_id   text PRIMARY KEY REFERENCES payments (id),
  merchant_id  text NOT NULL,
  project_id   text NOT NULL,
  mode         text NOT NULL CHECK (mode = 'test'),
  due_at       timestamptz NOT NULL
);
CREATE INDEX sandbox_dispute_openings_due ON sandbox_dispute_openings (due_at);
