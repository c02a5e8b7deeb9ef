import type { Client } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { DisputeReminder, DisputeRemindersService } from '../../proto/gen/svc/payments/v1/dispute_reminders_pb.js';
import { formatMoney } from '../../services/contract/index.js';
import { startOwnerMailQueue, type OwnerMailDeps } from './owner-mail-queue.js';

// Payments' reminder job decides which disputes are reminded and when (at most once a day, by the
// database's clock; docs/disputes.md, "Reminder") and leaves a reminder for each, which the
// gateway mails to the merchant's owners (owner-mail-queue.ts).

const page = (r: DisputeReminder, base: string | undefined) =>
  (base ? `${base}/dashboard/disputes/${r.disputeId}` : `Disputes, ${r.disputeId}`);
const days = (n: number) => (n === 1 ? '1 day' : `${n} days`);

/** The mail about one reminder; `publicBaseUrl` (PUBLIC_BASE_URL) makes the dispute's page a link. */
export function reminderMail(r: DisputeReminder, publicBaseUrl: string | undefined): { subject: string; text: string } {
  const amount = formatMoney(r.amount, r.currency);
  const due = r.evidenceDueBy ? timestampDate(r.evidenceDueBy).toISOString() : 'unknown';
  return {
    subject: `Dispute evidence due in ${days(r.evidenceDaysLeft)}: ${amount} (${r.disputeId})`,
    text: [
      `A cardholder's bank disputed a ${r.scope!.mode} payment of ${amount} (${r.paymentId}, project ${r.scope!.projectId}),`,
      `reason: ${r.reason.replace(/_/g, ' ')}. Evidence is due by ${due}: ${days(r.evidenceDaysLeft)} left.`,
      '',
      `Submit evidence or accept the dispute in the dashboard (${page(r, publicBaseUrl)})`,
      `or with POST /v1/disputes/${r.disputeId}/evidence. Without an answer the provider decides against you.`,
    ].join('\n'),
  };
}

export interface DisputeRemindersDeps extends OwnerMailDeps {
  reminders: Client<typeof DisputeRemindersService>;
  /** Read at each mail: a deployment's address may be known only once it listens (npm start, tests). */
  config: { publicBaseUrl?: string };
}

export function startDisputeReminders(deps: DisputeRemindersDeps) {
  return startOwnerMailQueue<DisputeReminder>({
    what: 'dispute reminder',
    take: async () => (await deps.reminders.takeDisputeReminders({ limit: 100 })).reminders,
    acknowledge: (ids) => deps.reminders.acknowledgeDisputeReminders({ ids }),
    idOf: (r) => r.id,
    merchantOf: (r) => r.scope!.merchantId,
    mailOf: (r) => reminderMail(r, deps.config.publicBaseUrl),
  }, deps);
}
