-- Each replica keeps its scopes' accounts and rules, and the closed buckets of their outcome
-- history, in memory (planning-cache.ts). Every change to what the planning read takes from these
-- tables notifies channel routing_risk_planning: a scope as a JSON array [merchant, project, mode],
-- or '*' for what every scope may read (the providers, the shared demo accounts, a truncate), and
-- for outcome buckets ["h", project, mode, the earliest minute counted] once per statement.
-- Triggers rather than the store's statements, so a change made by hand or by a test's SQL
-- invalidates too. A notification is sent at commit (none for a rolled-back change), once per
-- distinct payload per transaction.
CREATE FUNCTION planning_scope(merchant text, project text, mode text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN merchant IS NULL OR project IS NULL THEN '*' ELSE json_build_array(merchant, project, mode)::text END
$$;

CREATE FUNCTION notify_planning_change() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_LEVEL = 'STATEMENT' OR TG_TABLE_NAME = 'providers' THEN
    PERFORM pg_notify('routing_risk_planning', '*');
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM pg_notify('routing_risk_planning', planning_scope(OLD.merchant_id, OLD.project_id, OLD.mode));
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM pg_notify('routing_risk_planning', planning_scope(NEW.merchant_id, NEW.project_id, NEW.mode));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER planning_change AFTER INSERT OR UPDATE OR DELETE ON routing_rules
  FOR EACH ROW EXECUTE FUNCTION notify_planning_change();
CREATE TRIGGER planning_change AFTER INSERT OR UPDATE OR DELETE ON provider_accounts
  FOR EACH ROW EXECUTE FUNCTION notify_planning_change();
CREATE TRIGGER planning_change AFTER INSERT OR UPDATE OR DELETE ON providers
  FOR EACH ROW EXECUTE FUNCTION notify_planning_change();
CREATE TRIGGER planning_truncate AFTER TRUNCATE ON routing_rules
  FOR EACH STATEMENT EXECUTE FUNCTION notify_planning_change();
CREATE TRIGGER planning_truncate AFTER TRUNCATE ON provider_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION notify_planning_change();
CREATE TRIGGER planning_truncate AFTER TRUNCATE ON providers
  FOR EACH STATEMENT EXECUTE FUNCTION notify_planning_change();

-- The outcome writer's one statement per batch (outcome-store.ts) inserts and updates buckets: a
-- notification per project and mode in it, not per row. Transition tables need one trigger per event.
CREATE FUNCTION notify_outcome_minutes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('routing_risk_planning', json_build_array('h', project_id, mode, min(minute))::text)
  FROM counted GROUP BY project_id, mode;
  RETURN NULL;
END $$;

CREATE TRIGGER planning_outcomes_inserted AFTER INSERT ON outcome_minutes
  REFERENCING NEW TABLE AS counted FOR EACH STATEMENT EXECUTE FUNCTION notify_outcome_minutes();
CREATE TRIGGER planning_outcomes_updated AFTER UPDATE ON outcome_minutes
  REFERENCING NEW TABLE AS counted FOR EACH STATEMENT EXECUTE FUNCTION notify_outcome_minutes();
CREATE TRIGGER planning_truncate AFTER TRUNCATE ON outcome_minutes
  FOR EACH STATEMENT EXECUTE FUNCTION notify_planning_change();
