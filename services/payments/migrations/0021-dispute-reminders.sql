-- Evidence-deadline reminders (jobs/dispute-reminders.ts, docs/disputes.md "Reminder"). A dispute is
-- reminded at most once a day: the claiming statement compares last_reminded_at with the database's
-- clock and sets it, so replicas running the job at once never remind the same dispute twice.
ALTER TABLE disputes ADD COLUMN last_reminded_at timestamptz;
CREATE INDEX disputes_reminder_due ON disputes (evidence_due_by) WHERE status = 'needs_response';

-- Reminders issued and not yet mailed: the gateway takes each for a lease (taken_until, the
-- database's clock), mails the merchant's owners and deletes it (DisputeRemindersService).
CREATE TABLE dispute_reminders (
  id                 text PRIMARY KEY,
  dispute_id         text NOT NULL REFERENCES disputes (id),
  merchant_id        text NOT NULL,
  project_id         text NOT NULL,
  mode               text NOT NULL,
  payment_id         text NOT NULL,
  amount             bigint NOT NULL,
  currency           text NOT NULL,
  reason             text NOT NULL,
  evidence_due_by    timestamptz NOT NULL,
  evidence_days_left integer NOT NULL,
  created_at         timestamptz NOT NULL,
  taken_until        timestamptz
);
CREATE INDEX dispute_reminders_created ON dispute_reminders (created_at, id);
