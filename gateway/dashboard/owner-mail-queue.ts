import type { Logger } from '../../services/platform/logger.js';
import type { GatewayStore } from '../store/index.js';
import type { Mailer } from './mail-message.js';

// Parts that must tell a merchant's owners something (an endpoint disabled, a dispute's deadline)
// know neither the owners nor a mailer: they leave an item that each gateway replica takes with a
// lease, mails to the merchant's owners and acknowledges. An item whose mail failed is not
// acknowledged, so it is taken and mailed again after its lease; an item with nobody to mail (a
// merchant made by the operator, without dashboard users) is acknowledged with a log line.

export interface OwnerMailQueue<T> {
  /** What this queue mails about, for log lines: "dispute reminder", "disabled endpoint notice". */
  what: string;
  take(): Promise<T[]>;
  acknowledge(ids: string[]): Promise<unknown>;
  idOf(item: T): string;
  merchantOf(item: T): string;
  mailOf(item: T): { subject: string; text: string };
}

export interface OwnerMailDeps {
  store: Pick<GatewayStore, 'ownerEmails'>;
  mailer: Mailer;
  logger: Logger;
  everyMs: number;
}

export function startOwnerMailQueue<T>(queue: OwnerMailQueue<T>, deps: OwnerMailDeps) {
  let running: Promise<unknown> = Promise.resolve();

  async function runOnce(): Promise<number> {
    const done: string[] = [];
    for (const item of await queue.take()) {
      const id = queue.idOf(item);
      try {
        const owners = await deps.store.ownerEmails(queue.merchantOf(item));
        if (owners.length === 0) deps.logger.warn({ id }, `${queue.what}; its merchant has no owner to mail`);
        const mail = queue.mailOf(item);
        for (const to of owners) await deps.mailer.send({ to, ...mail });
        done.push(id);
      } catch (err) {
        deps.logger.warn({ id, err: (err as Error).message }, `${queue.what} not mailed; will retry`);
      }
    }
    if (done.length > 0) await queue.acknowledge(done);
    return done.length;
  }

  const timer = setInterval(() => {
    running = running.then(runOnce).catch((err: Error) =>
      deps.logger.warn({ err: err.message }, `${queue.what}s could not be taken; will retry`));
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
