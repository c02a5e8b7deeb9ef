-- Each gateway replica answers "which key, which project, which mode, is it allowed" from memory
-- (gateway/edge/key-cache.ts). Every change to what admission reads from these tables notifies
-- channel gateway_admission, so every replica forgets what it names: ["key", id], ["project", id],
-- ["merchant", id], or '*' (a truncate). Triggers rather than the store's statements, so a change made
-- by hand, by a later column (an expiry, a suspension) or by a test's SQL invalidates too. An update
-- that changes nothing but a key's last_used_at (stamped by admission itself) notifies nothing.
-- A notification is sent at commit, never for a rolled-back change.
CREATE FUNCTION notify_admission_change() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  kind text := CASE TG_TABLE_NAME WHEN 'api_keys' THEN 'key' WHEN 'projects' THEN 'project' ELSE 'merchant' END;
BEGIN
  IF TG_LEVEL = 'STATEMENT' THEN
    PERFORM pg_notify('gateway_admission', '*');
  ELSIF TG_OP = 'DELETE' OR (to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at') THEN
    PERFORM pg_notify('gateway_admission', json_build_array(kind, OLD.id)::text);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER admission_change AFTER UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_admission_change();
CREATE TRIGGER admission_change AFTER UPDATE OR DELETE ON projects
  FOR EACH ROW EXECUTE FUNCTION notify_admission_change();
CREATE TRIGGER admission_change AFTER UPDATE OR DELETE ON merchants
  FOR EACH ROW EXECUTE FUNCTION notify_admission_change();
CREATE TRIGGER admission_truncate AFTER TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_admission_change();
CREATE TRIGGER admission_truncate AFTER TRUNCATE ON projects
  FOR EACH STATEMENT EXECUTE FUNCTION notify_admission_change();
CREATE TRIGGER admission_truncate AFTER TRUNCATE ON merchants
  FOR EACH STATEMENT EXECUTE FUNCTION notify_admission_change();
