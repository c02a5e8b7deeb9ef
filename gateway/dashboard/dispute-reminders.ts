import type { Client } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { DisputeReminder, DisputeRemindersService } from '../../proto/gen/svc/payments/v1/dispute_reminders_pb.js';
import { formatMoney } from '../../services/contract/index.js';
import type { Logger } from '../../services/platform/index.js';
import type { GatewayStore } from '../store/index.js';
import type { Mailer } from './mail-message.js';

// Payments' reminder job decides which disputes are reminded and when (at most once a day, by the
// database's clock; docs/disputes.md, "Reminder") and leaves a reminder for each; it does not know
// the merchant's people. Each gateway replica takes those reminders every interval (each is taken
// by one replica for ten minutes), mails the merchant's owners and acknowledges; a reminder whose
// mail failed is not acknowledged, so it is taken and mailed again after its lease.

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

export interface DisputeRemindersDeps {
  reminders: Client<typeof DisputeRemindersService>;
  store: Pick<GatewayStore, 'ownerEmails'>;
  mailer: Mailer;
  logger: Logger;
  /** Read at each mail: a deployment's address may be known only once it listens (npm start, tests). */
  config: { publicBaseUrl?: string };
  everyMs: number;
}

export function startDisputeReminders(deps: DisputeRemindersDeps) {
  let running: Promise<unknown> = Promise.resolve();

  async function runOnce(): Promise<number> {
    const { reminders } = await deps.reminders.takeDisputeReminders({ limit: 100 });
    const done: string[] = [];
    for (const r of reminders) {
      try {
        const owners = await deps.store.ownerEmails(r.scope!.merchantId);
        if (owners.length === 0) deps.logger.warn({ dispute: r.disputeId }, 'dispute reminder; its merchant has no owner to mail');
        const mail = reminderMail(r, deps.config.publicBaseUrl);
        for (const to of owners) await deps.mailer.send({ to, ...mail });
        done.push(r.id);
      } catch (err) {
        deps.logger.warn({ dispute: r.disputeId, err: (err as Error).message }, 'dispute reminder not mailed; will retry');
      }
    }
    if (done.length > 0) await deps.reminders.acknowledgeDisputeReminders({ ids: done });
    return done.length;
  }

  const timer = setInterval(() => {
    running = running.then(runOnce).catch((err: Error) =>
      deps.logger.warn({ err: err.message }, 'dispute reminders could not be taken; will retry'));
  }, deps.everyMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
