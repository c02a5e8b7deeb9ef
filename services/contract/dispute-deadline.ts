// Days left before a dispute's evidence deadline, written once for the reminder (payments' job, its
// event's `evidence_days_left`) and the dashboard (Disputes page). Imports nothing, so the
// dashboard's bundler takes it as it is.

const DAY_MS = 24 * 3600 * 1000;

/** The reminder starts when this many days or fewer are left (docs/disputes.md, "Reminder"). */
export const REMINDER_DAYS = 3;

/**
 * Whole days left before `due`, rounded up: 2 days and 1 hour is 3, one hour is 1, a deadline that
 * has passed is 0 or less.
 */
export function evidenceDaysLeft(due: Date, now: Date): number {
  return Math.ceil((due.getTime() - now.getTime()) / DAY_MS);
}
