-- A provider's answer is recorded in one statement that first locks the payment and checks that
-- its attempt is still in flight; when reconciliation settled the attempt meanwhile, this aborts
-- the whole statement, so none of its writes apply (services/payments/payments/commit.ts).
CREATE FUNCTION require_attempt_in_flight(in_flight boolean) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF NOT in_flight THEN
    RAISE EXCEPTION 'attempt settled elsewhere' USING ERRCODE = 'SV001';
  END IF;
  RETURN true;
END
$$;
