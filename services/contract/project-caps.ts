import { DomainError } from './errors.js';

// The documented per-project caps, and the one per stored payment method (docs/webhooks.md "Limits of a
// project", docs/decisions/2026-11-27-event-streams-caps-and-webhook-secrets.md and
// docs/decisions/2026-12-07-the-operators-terminal-lists-a-stranger-can-grow.md). One home: the gateway's key store, the webhooks part's
// endpoint store, the event stream, payments' method and sandbox stores and their tests read them from here. Each bounds what one
// project can make the service do on its behalf (fan-out per event, lookups per request, polls);
// none is a business limit a merchant should meet in normal use. Rows made before a cap existed
// keep working: only creating (or enabling) beyond it is refused.

/** Active (not revoked) API keys per project and mode. */
export const MAX_ACTIVE_API_KEYS = 50;

/** Enabled webhook endpoints per project and mode: the fan-out of one event, and of POST /v1/webhooks/test. */
export const MAX_ENABLED_WEBHOOK_ENDPOINTS = 20;

/** Open event streams (svc listen) per project on one gateway replica; each polls the webhooks part. */
export const MAX_EVENT_STREAMS_PER_PROJECT = 5;

/**
 * Credentials of one stored payment method: a method needs one token per provider it is charged at
 * (five licensed providers and the sandbox's three demo ones) and one vault reference; every payment
 * with the method reads them all.
 */
export const MAX_PAYMENT_METHOD_CREDENTIALS = 10;

/**
 * Sandbox behaviour segments per project and mode (test): three demo providers, a few methods and
 * currencies, and the countries a merchant tries; the demo connector reads them all per attempt.
 */
export const MAX_DEMO_SEGMENTS = 100;

/** Routing rules per project and mode: the route planner weighs them all for every payment. */
export const MAX_ROUTING_RULES = 100;

/**
 * Active provider accounts per project and mode: the route planner weighs them all for every
 * payment. Five licensed providers with a few accounts each (an entity or region per account).
 */
export const MAX_ACTIVE_PROVIDER_ACCOUNTS = 25;

/** 409 limit_reached naming the cap and the way out; `holder` is the project unless a method's list. */
export function limitReached(what: string, limit: number, wayOut: string, holder = 'This project'): DomainError {
  return new DomainError('limit_reached', `${holder} already has ${limit} ${what}, the most it may have; ${wayOut}`, {
    details: { limit },
  });
}
