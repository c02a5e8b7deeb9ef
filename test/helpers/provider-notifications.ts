// A provider's notification as the gateway receives it, and what payments recorded of it: the
// delivery to /providers/<code>/webhooks/<account> and the account's provider_notifications rows,
// shared by the live tests of every provider.
import type { TestStack } from './stack.js';

/** A signed (or forged) notification as a stand-in helper builds it. */
export interface NotificationDelivery {
  body: string;
  headers: Record<string, string>;
}

/** Posts a delivery to the gateway's webhook route for the provider's account, as the provider would. */
export function deliverNotification(baseUrl: string, provider: string, accountId: string, d: NotificationDelivery): Promise<Response> {
  return fetch(`${baseUrl}/providers/${provider}/webhooks/${accountId}`, { method: 'POST', headers: d.headers, body: d.body });
}

/** The account's recorded notifications as [event id, effect], in the order they were received. */
export async function notificationRows(stack: Pick<TestStack, 'query'>, accountId: string): Promise<[string, string][]> {
  const { rows } = await stack.query(
    'SELECT event_id, effect FROM payments.provider_notifications WHERE provider_account_id = $1 ORDER BY received_at, event_id',
    [accountId],
  );
  return rows.map((r) => [r.event_id, r.effect]);
}
