import type { Client } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { EndpointNotice, WebhooksService } from '../../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import { startOwnerMailQueue, type OwnerMailDeps } from './owner-mail-queue.js';

// The webhooks part disables an endpoint that failed every delivery for WEBHOOK_DISABLE_AFTER_HOURS
// and leaves a notice (it has no mailer and no idea who the merchant's people are), which the
// gateway mails to the merchant's owners (owner-mail-queue.ts).

const at = (t: { seconds: bigint; nanos: number } | undefined) => (t ? timestampDate(t as never).toISOString() : 'unknown');

export function noticeMail(n: EndpointNotice, dashboardUrl: string): { subject: string; text: string } {
  const e = n.endpoint!;
  const mode = n.scope!.mode;
  return {
    subject: `Webhook endpoint disabled: ${e.url}`,
    text: [
      `Your ${mode} webhook endpoint ${e.url} (${e.id}, project ${n.scope!.projectId}) was disabled on ${at(e.disabledAt)}:`,
      `every delivery to it has failed since ${at(e.failingSince)}.`,
      '',
      'Deliveries are kept while it is disabled. Fix the receiver, then enable the endpoint again in the',
      `dashboard (${dashboardUrl}, Webhooks) or with \`svc endpoint enable ${e.id}\`: what is pending is sent then,`,
      'and `svc endpoint recover` resends what failed before.',
    ].join('\n'),
  };
}

export interface EndpointNoticesDeps extends OwnerMailDeps {
  webhooks: Client<typeof WebhooksService>;
  dashboardUrl: string;
}

export function startEndpointNotices(deps: EndpointNoticesDeps) {
  return startOwnerMailQueue<EndpointNotice>({
    what: 'disabled endpoint notice',
    take: async () => (await deps.webhooks.takeEndpointNotices({ limit: 100 })).notices,
    acknowledge: (endpointIds) => deps.webhooks.acknowledgeEndpointNotices({ endpointIds }),
    idOf: (n) => n.endpoint!.id,
    merchantOf: (n) => n.scope!.merchantId,
    mailOf: (n) => noticeMail(n, deps.dashboardUrl),
  }, deps);
}
