import type { Client } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { EndpointNotice, WebhooksService } from '../../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import type { Logger } from '../../services/platform/index.js';
import type { GatewayStore } from '../store/index.js';
import type { Mailer } from './mail-message.js';

// The webhooks part disables an endpoint that failed every delivery for WEBHOOK_DISABLE_AFTER_HOURS
// and leaves a notice (it has no mailer and no idea who the merchant's people are). Each gateway
// replica takes those notices every interval (each is taken by one replica for ten minutes), mails
// the merchant's owners with the configured mailer, and acknowledges; a notice whose mail failed is
// not acknowledged, so it is taken and mailed again later. Nobody to mail (a merchant made by the
// operator, without dashboard users) is acknowledged with a log line.

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

export interface EndpointNoticesDeps {
  webhooks: Client<typeof WebhooksService>;
  store: Pick<GatewayStore, 'ownerEmails'>;
  mailer: Mailer;
  logger: Logger;
  dashboardUrl: string;
  everyMs: number;
}

export function startEndpointNotices(deps: EndpointNoticesDeps) {
  let running: Promise<unknown> = Promise.resolve();

  async function runOnce(): Promise<number> {
    const { notices } = await deps.webhooks.takeEndpointNotices({ limit: 100 });
    const done: string[] = [];
    for (const n of notices) {
      try {
        const owners = await deps.store.ownerEmails(n.scope!.merchantId);
        if (owners.length === 0) deps.logger.warn({ endpoint: n.endpoint!.id }, 'webhook endpoint disabled; its merchant has no owner to mail');
        const mail = noticeMail(n, deps.dashboardUrl);
        for (const to of owners) await deps.mailer.send({ to, ...mail });
        done.push(n.endpoint!.id);
      } catch (err) {
        deps.logger.warn({ endpoint: n.endpoint!.id, err: (err as Error).message }, 'disabled endpoint notice not mailed; will retry');
      }
    }
    if (done.length > 0) await deps.webhooks.acknowledgeEndpointNotices({ endpointIds: done });
    return done.length;
  }

  const timer = setInterval(() => {
    running = running.then(runOnce).catch((err: Error) =>
      deps.logger.warn({ err: err.message }, 'disabled endpoint notices could not be taken; will retry'));
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
