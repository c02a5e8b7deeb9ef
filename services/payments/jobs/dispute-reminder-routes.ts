import type { ConnectRouter } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { DisputeRemindersService } from '../../../proto/gen/svc/payments/v1/dispute_reminders_pb.js';
import type { DisputeReminders } from './dispute-reminders.js';

/** At most this many reminders per take. */
const REMINDERS_AT_ONCE = 100;

/** DisputeRemindersService: the gateway takes the reminders the job issued, mails the owners, acknowledges. */
export function disputeReminderRoutes(reminders: DisputeReminders) {
  return (router: ConnectRouter) => {
    router.service(DisputeRemindersService, {
      async takeDisputeReminders(req) {
        const taken = await reminders.take(Math.min(REMINDERS_AT_ONCE, Math.max(1, req.limit || REMINDERS_AT_ONCE)));
        return {
          reminders: taken.map((r) => ({
            id: r.id, scope: r.scope, disputeId: r.disputeId, paymentId: r.paymentId, amount: r.amount, currency: r.currency,
            reason: r.reason, evidenceDueBy: timestampFromDate(r.evidenceDueBy), evidenceDaysLeft: r.evidenceDaysLeft,
          })),
        };
      },
      async acknowledgeDisputeReminders(req) {
        await reminders.acknowledge(req.ids);
        return {};
      },
    });
  };
}
