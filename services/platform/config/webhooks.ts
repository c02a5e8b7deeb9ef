import { bool, int, key32, type Env } from './parse.js';

// The webhooks part's settings: delivery attempts and their pace, the signing secrets' key,
// retention and endpoint health.

export interface WebhooksSettings {
  /** Deadline of one webhook delivery attempt: connect, request and response together. */
  webhookTimeoutMs: number;
  /** Attempts per delivery before it is exhausted (the contract's default is 6). */
  webhookMaxAttempts: number;
  /** Webhook attempts in flight at once per webhooks replica. */
  webhookConcurrency: number;
  /** Of those, at most this many to one endpoint, so a slow endpoint cannot take every slot. */
  webhookEndpointConcurrency: number;
  /** How often each webhooks replica looks for due retries (it is also woken by new events). */
  webhookPollMs: number;
  /** How long the event consumer waits for more events before storing a lone one. */
  webhookEventsWaitMs: number;
  /** Whether test-mode endpoints may point at loopback addresses (local development). */
  webhooksAllowLoopbackInTest: boolean;
  /** 32-byte key that encrypts endpoint signing secrets at rest; unset: stored as they are. */
  webhookSecretKey?: Buffer;
  /** Webhook attempts one webhooks replica starts per second to one destination host; more wait. */
  webhookHostRatePerSecond: number;
  /** Days events, deliveries and attempts are kept by webhooks (GET /v1/events shows as much). */
  webhookRetentionDays: number;
  /** Hours an endpoint may fail every delivery before it is disabled; 0: never disabled for it. */
  webhookDisableAfterHours: number;
  /** How often each webhooks replica sweeps: disables failing endpoints, deletes what is past retention. */
  webhookSweepMs: number;
}

export function webhooksSettings(env: Env): WebhooksSettings {
  return {
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS'),
    webhookMaxAttempts: int(env, 'WEBHOOK_MAX_ATTEMPTS'),
    webhookConcurrency: int(env, 'WEBHOOK_CONCURRENCY'),
    webhookEndpointConcurrency: int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY'),
    webhookPollMs: int(env, 'WEBHOOK_POLL_MS'),
    webhookEventsWaitMs: int(env, 'WEBHOOK_EVENTS_WAIT_MS'),
    webhooksAllowLoopbackInTest: bool(env, 'WEBHOOKS_ALLOW_LOOPBACK_IN_TEST', true),
    webhookSecretKey: key32(env, 'WEBHOOK_SECRET_KEY'),
    webhookHostRatePerSecond: int(env, 'WEBHOOK_HOST_RATE_PER_SECOND'),
    // The Events API's retention and endpoint health.
    webhookRetentionDays: int(env, 'WEBHOOK_RETENTION_DAYS'),
    webhookDisableAfterHours: int(env, 'WEBHOOK_DISABLE_AFTER_HOURS'),
    webhookSweepMs: int(env, 'WEBHOOK_SWEEP_MS'),
  };
}
