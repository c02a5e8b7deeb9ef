import type { ServerResponse } from 'node:http';
import type { Client } from '@connectrpc/connect';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebhooksService } from '../../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import { EVENT_TYPES } from '../../services/contract/enums.js';
import { DomainError, invalidField } from '../../services/contract/index.js';
import { MAX_EVENT_STREAMS_PER_PROJECT } from '../../services/contract/project-caps.js';
import { scopeOf } from '../auth/authenticate.js';
import { identityOf } from '../auth/identity.js';
import type { AddressRange } from '../../services/contract/ip-address.js';
import { clientAddress } from '../edge/ip-allowlist.js';
import { createStreamGuard, STREAM_END_MESSAGES, type StreamEndReason } from './stream-guard.js';

// GET /v1/test/events/stream: the project's events as server-sent events, as they are stored, for
// `svc listen` (test keys only). Each open stream polls the webhooks part (ListEventsAfter) from
// the moment it opens; the part's cursor misses nothing stored while the stream is open. The
// cursor after each page is the SSE `id`, so a client reconnecting with Last-Event-ID resumes
// where it was and misses nothing stored while it was away either. Not in the contract's operation
// table: its answer is a stream, not a JSON resource (docs/decisions.md).
//
// A stream ends by itself at its maximum lifetime, when its key is revoked or its project's
// allow-list stops admitting its address (stream-guard.ts), and on shutdown; its last event,
// `event: stream_ended` with data {"reason", "message"}, says which (svc listen reconnects after
// max_lifetime and shutting_down, and stops after the others).

export const EVENT_STREAM_PATH = '/test/events/stream';

export interface EventStreamOptions {
  /** How often an open stream asks the webhooks part for new events. */
  pollMs: number;
  /** A comment line this often keeps proxies and ingresses from closing an idle stream. */
  keepAliveMs: number;
  /** Streams one project may hold open at once on this gateway: each polls the webhooks part. */
  maxPerProject: number;
  /** Streams this gateway holds open at once, every project together (EVENT_STREAMS_PER_GATEWAY). */
  maxPerGateway: number;
  /** A stream ends after this long (EVENT_STREAM_MAX_LIFETIME_SECONDS); its client reconnects. */
  maxLifetimeMs: number;
  /** How often open streams' keys and allow-lists are re-checked (EVENT_STREAM_RECHECK_MS). */
  recheckMs: number;
  /** Each key still active with its project's allow-list (store/stream-grants.ts). */
  grants(keyIds: string[]): Promise<Map<string, string[]>>;
  /** TRUSTED_PROXIES, compiled: the address a stream is re-checked with is the one admission saw. */
  trustedProxies: AddressRange[];
}

const DEFAULTS = { pollMs: 250, keepAliveMs: 15_000, maxPerProject: MAX_EVENT_STREAMS_PER_PROJECT };
/** What a refused stream is told to wait before trying again. */
const FULL_RETRY_AFTER_SECONDS = 5;
/** What a browser's EventSource waits before reconnecting after the stream ends. */
const RETRY_MS = 1_000;

/** `events=`: exact types, `*`, or `prefix.*`; [] means all. Unknown types are refused, as endpoints do. */
export function eventTypesOf(param: unknown): string[] {
  if (param === undefined || param === '') return [];
  if (typeof param !== 'string') throw invalidField('events', 'events must be one comma-separated list');
  const types = new Set<string>();
  for (const pattern of param.split(',').map((p) => p.trim())) {
    if (pattern === '*') return [];
    const matched = pattern.endsWith('.*')
      ? EVENT_TYPES.filter((t) => t.startsWith(pattern.slice(0, -1)))
      : EVENT_TYPES.filter((t) => t === pattern);
    if (matched.length === 0) {
      throw invalidField('events', `"${pattern}" matches no event type; known types: ${EVENT_TYPES.join(', ')}`);
    }
    matched.forEach((t) => types.add(t));
  }
  return [...types];
}

/**
 * Writes an SSE chunk; resolves when the socket took it, so a slow client slows its own poll only.
 * Shutdown ends a stream whenever it comes (preClose), perhaps while a page is being written: a
 * write after the end would be an 'error' event nobody listens to, which ends the process.
 */
export function writeChunk(res: ServerResponse, chunk: string): Promise<void> {
  if (res.destroyed || res.writableEnded) return Promise.resolve();
  if (res.write(chunk)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

const eventChunk = (body: string, id?: string) => `${id === undefined ? '' : `id: ${id}\n`}data: ${body}\n\n`;

/** Ends a stream with its last event saying why; nothing is written after it. */
function endStream(res: ServerResponse, reason: StreamEndReason): void {
  if (res.destroyed || res.writableEnded) return;
  res.write(`event: stream_ended\ndata: ${JSON.stringify({ reason, message: STREAM_END_MESSAGES[reason] })}\n\n`);
  // Closed as soon as the end is written: a client that stopped reading would otherwise keep it half-open.
  res.end(() => res.destroy());
}

/** Registers the route on the /v1 scope, after its admission hooks (authentication, allow-list, rate limit). */
export function installEventStream(
  scope: FastifyInstance, webhooks: Client<typeof WebhooksService>,
  options: Partial<EventStreamOptions> & Pick<EventStreamOptions, 'maxPerGateway' | 'maxLifetimeMs' | 'recheckMs' | 'grants' | 'trustedProxies'>,
): void {
  const opts: EventStreamOptions = { ...DEFAULTS, ...options };
  const open = new Set<ServerResponse>();
  const guard = createStreamGuard({ grants: opts.grants, intervalMs: opts.recheckMs, log: scope.log });
  // On shutdown each stream ends now (its client reconnects elsewhere) instead of holding the
  // drain until connections are cut.
  scope.addHook('preClose', async () => {
    guard.close();
    for (const res of open) endStream(res, 'shutting_down');
  });

  const perProject = new Map<string, number>();
  let held = 0;
  const refuse = (reply: FastifyReply, message: string) => {
    reply.header('retry-after', String(FULL_RETRY_AFTER_SECONDS));
    return new DomainError('rate_limited', message);
  };
  /** Takes one of the project's and the gateway's stream places, or refuses 429; the function gives them back (once). */
  const admit = (reply: FastifyReply, projectId: string): (() => void) => {
    const ofProject = perProject.get(projectId) ?? 0;
    if (ofProject >= opts.maxPerProject) {
      throw refuse(reply, `This project already has ${opts.maxPerProject} event streams open (svc listen); close one and retry.`);
    }
    if (held >= opts.maxPerGateway) {
      throw refuse(reply, `This gateway already holds ${opts.maxPerGateway} event streams, the most it may; retry shortly.`);
    }
    perProject.set(projectId, ofProject + 1);
    held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      held--;
      const left = (perProject.get(projectId) ?? 1) - 1;
      if (left > 0) perProject.set(projectId, left);
      else perProject.delete(projectId);
    };
  };

  scope.get(EVENT_STREAM_PATH, async (request: FastifyRequest, reply: FastifyReply) => {
    const identity = identityOf(request);
    if (identity.mode !== 'test') {
      throw new DomainError('forbidden', 'The event stream (svc listen) is available to test keys only.');
    }
    const eventTypes = eventTypesOf((request.query as Record<string, unknown>).events);
    const resume = request.headers['last-event-id'];
    const projectScope = scopeOf(identity);
    const poll = (cursor: string) => webhooks.listEventsAfter({ scope: projectScope, cursor, eventTypes });
    // Counted before the first poll, so streams opened at the same moment cannot all slip in.
    const release = admit(reply, projectScope.projectId);
    let first: Page;
    try {
      // Before any byte is sent, so a refused cursor is still an ordinary error reply.
      first = await poll(typeof resume === 'string' ? resume.trim() : '');
    } catch (err) {
      release();
      throw err;
    }

    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      // nginx (and ingresses built on it) would otherwise buffer the stream.
      'x-accel-buffering': 'no',
      // The connection ends with the stream: one ended on shutdown must not linger as an idle keep-alive.
      connection: 'close',
    });
    open.add(res);
    const lifetime = setTimeout(() => endStream(res, 'max_lifetime'), opts.maxLifetimeMs);
    const address = clientAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], opts.trustedProxies);
    const unwatch = guard.watch({ keyId: identity.apiKey.id, address, end: (reason) => endStream(res, reason) });
    res.on('close', () => {
      clearTimeout(lifetime);
      unwatch();
      open.delete(res);
      release();
    });
    // The start as the first id, so a client dropped before any event resumes from here; when the
    // first page has events (a resumed stream) its id rides on them instead.
    const id = first.events.length === 0 ? `id: ${first.cursor}\n` : '';
    await writeChunk(res, `retry: ${RETRY_MS}\n${id}: connected\n\n`);
    void pump(res, poll, first, opts, request.log);
  });
}

type Page = Awaited<ReturnType<Client<typeof WebhooksService>['listEventsAfter']>>;

/** Sends pages as they come until the client leaves or the gateway closes the stream. */
async function pump(
  res: ServerResponse, poll: (cursor: string) => Promise<Page>, first: Page, opts: EventStreamOptions, log: FastifyBaseLogger,
): Promise<void> {
  let page = first;
  let lastWrite = Date.now();
  let failing = false;
  const closed = () => res.destroyed || res.writableEnded;
  while (!closed()) {
    // The page's cursor rides on its last event: a client that got the whole page resumes after it.
    for (const [i, e] of page.events.entries()) {
      await writeChunk(res, eventChunk(e.body, i === page.events.length - 1 ? page.cursor : undefined));
      lastWrite = Date.now();
    }
    if (closed()) return;
    if (Date.now() - lastWrite >= opts.keepAliveMs) {
      await writeChunk(res, ': keep-alive\n\n');
      lastWrite = Date.now();
    }
    if (!page.hasMore) await pause(res, opts.pollMs);
    if (closed()) return;
    try {
      page = await poll(page.cursor);
      if (failing) log.info('event stream: the webhooks part answers again');
      failing = false;
    } catch (err) {
      // The webhooks part restarting must not end the stream: the same cursor is asked again.
      if (!failing) log.warn({ err }, 'event stream: polling the webhooks part failed; retrying');
      failing = true;
      page = { ...page, events: [], hasMore: false };
    }
  }
}

/** Waits `ms`, or less if the client goes away. */
function pause(res: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.on('close', done);
  });
}
