-- Routing that learns.

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

-- The sliding window's raw material: outcomes per project, account and segment in five-minute
-- buckets (`minute`: the bucket's first minute since the epoch), so a window by time and by count is a sum of the newest rows (window-stats.ts). Each
-- outcome is counted at three levels, so the planning read looks rows up instead of summing a
-- segment's every country and network: the payment's country and network; its country, network
-- '*'; and country and network '*' (the method and currency). '' stands for "not known". Per
-- project, because the shared demo accounts behave per project in the sandbox, and a licensed
-- account is a project's anyway.
CREATE TABLE outcome_minutes (
  project_id          text NOT NULL,
  mode                text NOT NULL,
  payment_method      text NOT NULL,
  currency            text NOT NULL,
  country             text NOT NULL,
  card_network        text NOT NULL,
  minute              bigint NOT NULL,
  provider_account_id text NOT NULL,
  succeeded           integer NOT NULL,
  soft_declined       integer NOT NULL,
  hard_declined       integer NOT NULL,
  technical           integer NOT NULL,
  PRIMARY KEY (project_id, mode, payment_method, currency, country, card_network, minute, provider_account_id)
);
-- Rows arrive in time order: a block range index finds old minutes to prune at almost no write cost.
CREATE INDEX outcome_minutes_minute ON outcome_minutes USING brin (minute);

-- Counted by a trigger on the claimed outcome row: in the claim's own statement and transaction, so
-- a redelivered event (no new row) counts nothing, whichever statement claims rows (one per event
-- or a batch). The classification is window-stats.ts's outcomeKind, which the routing-history test
-- holds to this one.
CREATE FUNCTION count_outcome_minute() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  kind text := CASE
    WHEN NEW.status <> 'failed' THEN 'succeeded'
    WHEN NEW.failure_category IN ('hard', 'policy') THEN 'hard'
    WHEN NEW.failure_category = 'soft' THEN 'soft'
    ELSE 'technical' END;
  v_country text := coalesce(NEW.country, '');
  -- The bucket's first minute: five-minute buckets keep the planning read to 24 rows per account and level.
  v_minute bigint := floor(extract(epoch FROM NEW.settled_at) / 300)::bigint * 5;
BEGIN
  INSERT INTO outcome_minutes AS m (project_id, mode, payment_method, currency, country, card_network, minute,
    provider_account_id, succeeded, soft_declined, hard_declined, technical)
  SELECT NEW.project_id, NEW.mode, NEW.payment_method, NEW.currency, l.level_country, l.level_network, v_minute,
    NEW.provider_account_id, (kind = 'succeeded')::int, (kind = 'soft')::int, (kind = 'hard')::int, (kind = 'technical')::int
  FROM (VALUES (v_country, coalesce(NEW.card_network, '')), (v_country, '*'), ('*', '*')) AS l (level_country, level_network)
  ON CONFLICT (project_id, mode, payment_method, currency, country, card_network, minute, provider_account_id) DO UPDATE SET
    succeeded = m.succeeded + EXCLUDED.succeeded,
    soft_declined = m.soft_declined + EXCLUDED.soft_declined,
    hard_declined = m.hard_declined + EXCLUDED.hard_declined,
    technical = m.technical + EXCLUDED.technical;
  RETURN NULL;
END $$;

CREATE TRIGGER attempt_outcomes_minute AFTER INSERT ON attempt_outcomes
  FOR EACH ROW EXECUTE FUNCTION count_outcome_minute();
