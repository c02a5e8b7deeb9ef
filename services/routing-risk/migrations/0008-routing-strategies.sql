-- Routing that learns (issue 26).

-- A rule's strategy and its settings (strategies/types.ts, StrategyConfig); NULL: priority, the
-- rule's own order, as before.
ALTER TABLE routing_rules ADD COLUMN strategy jsonb;

-- What each decision weighed: the strategy, the candidates with their scores and notes, the reason
-- in words, and whether the payment took the exploration or probe share.
ALTER TABLE routing_decisions
  ADD COLUMN strategy text,
  ADD COLUMN scores jsonb NOT NULL DEFAULT '[]',
  ADD COLUMN reason text,
  ADD COLUMN explored boolean NOT NULL DEFAULT false;

-- The sliding window's raw material: outcomes per project, account and segment in one-minute
-- buckets, so a window by time and by count is a sum of the newest rows (window-stats.ts). Per
-- project, because the shared demo accounts behave per project in the sandbox, and a licensed
-- account is a project's anyway. '' stands for "not known" in the segment's columns.
CREATE TABLE outcome_minutes (
  project_id          text NOT NULL,
  mode                text NOT NULL,
  payment_method      text NOT NULL,
  currency            text NOT NULL,
  minute              bigint NOT NULL,
  provider_account_id text NOT NULL,
  country             text NOT NULL,
  card_network        text NOT NULL,
  succeeded           integer NOT NULL,
  soft_declined       integer NOT NULL,
  hard_declined       integer NOT NULL,
  technical           integer NOT NULL,
  PRIMARY KEY (project_id, mode, payment_method, currency, minute, provider_account_id, country, card_network)
);

-- Counted by a trigger on the claimed outcome row: in the claim's own statement and transaction, so
-- a redelivered event (no new row) counts nothing, whichever statement claims rows (one per event
-- or a batch). The classification is window-stats.ts's outcomeKind, which the outcome-window test
-- holds to this one.
CREATE FUNCTION count_outcome_minute() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  kind text := CASE
    WHEN NEW.status <> 'failed' THEN 'succeeded'
    WHEN NEW.failure_category IN ('hard', 'policy') THEN 'hard'
    WHEN NEW.failure_category = 'soft' THEN 'soft'
    ELSE 'technical' END;
BEGIN
  INSERT INTO outcome_minutes AS m (project_id, mode, payment_method, currency, minute, provider_account_id, country,
    card_network, succeeded, soft_declined, hard_declined, technical)
  VALUES (NEW.project_id, NEW.mode, NEW.payment_method, NEW.currency, floor(extract(epoch FROM NEW.settled_at) / 60)::bigint,
    NEW.provider_account_id, coalesce(NEW.country, ''), coalesce(NEW.card_network, ''),
    (kind = 'succeeded')::int, (kind = 'soft')::int, (kind = 'hard')::int, (kind = 'technical')::int)
  ON CONFLICT (project_id, mode, payment_method, currency, minute, provider_account_id, country, card_network) DO UPDATE SET
    succeeded = m.succeeded + EXCLUDED.succeeded,
    soft_declined = m.soft_declined + EXCLUDED.soft_declined,
    hard_declined = m.hard_declined + EXCLUDED.hard_declined,
    technical = m.technical + EXCLUDED.technical;
  RETURN NULL;
END $$;

CREATE TRIGGER attempt_outcomes_minute AFTER INSERT ON attempt_outcomes
  FOR EACH ROW EXECUTE FUNCTION count_outcome_minute();
