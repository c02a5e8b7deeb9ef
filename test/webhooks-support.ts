// Shared pieces of the webhooks tests: real HTTP receivers on loopback, a signature check written
// from the contract alone, a movable clock, and the webhooks part run on its own.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { createClient, type Client } from '@connectrpc/connect';
import pg from 'pg';
import { WebhooksService } from '../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import type { Mode } from '../services/contract/enums.js';
import * as webhooks from '../services/webhooks/index.js';
import type { EventBus } from '../services/platform/bus/index.js';
import type { Clock } from '../services/platform/clock.js';
import { loadConfig } from '../services/platform/config.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { newId } from '../services/platform/ids.js';
import { newInternalToken } from '../services/platform/internal-callers.js';
import { createLogger } from '../services/platform/logger.js';
import { migrate } from '../services/platform/migrate.js';
import type { ServicePart } from '../services/platform/part.js';
import { createPeerTransport } from '../services/platform/rpc.js';
import { listen } from '../services/platform/standalone.js';
import { eventSubject, type EventEnvelope } from '../services/contract/index.js';
import { createTestBus, type TestBus } from './helpers/bus.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { eventually as pollUntil } from './helpers/eventually.js';
import { serveLoopback } from './helpers/stand-in-server.js';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
  at: number;
}

/** How a receiver answers one request: a status (and body), a redirect, or never. */
export type Behaviour = number | 'hang' | { status: number; body?: string; headers?: Record<string, string>; delayMs?: number };

export interface Receiver {
  url: string;
  received: Received[];
  /** Requests in progress right now, and the most ever at once, per svc-delivery-id. */
  maxConcurrentPerDelivery(): number;
  setBehaviour(b: Behaviour | ((r: Received) => Behaviour)): void;
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(initial: Behaviour | ((r: Received) => Behaviour) = 200): Promise<Receiver> {
  let behaviour = initial;
  const received: Received[] = [];
  const open = new Map<string, number>();
  let maxConcurrent = 0;
  const server = await serveLoopback((req, res, body) => {
    const r: Received = { path: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders, body, at: performance.now() };
    received.push(r);
    const id = String(req.headers['svc-delivery-id']);
    open.set(id, (open.get(id) ?? 0) + 1);
    maxConcurrent = Math.max(maxConcurrent, open.get(id)!);
    const done = () => open.set(id, open.get(id)! - 1);
    const b = typeof behaviour === 'function' ? behaviour(r) : behaviour;
    if (b === 'hang') {
      res.on('close', done);
      return;
    }
    const spec = typeof b === 'number' ? { status: b } : b;
    const answer = () => {
      res.writeHead(spec.status, { 'content-type': 'text/plain', ...spec.headers });
      res.end(spec.body ?? `status ${spec.status}`);
      done();
    };
    if (spec.delayMs) setTimeout(answer, spec.delayMs);
    else answer();
  });
  return {
    url: `${server.baseUrl}/hooks`,
    received,
    maxConcurrentPerDelivery: () => maxConcurrent,
    setBehaviour: (b) => (behaviour = b),
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received;
    },
    close: server.close,
  };
}

/**
 * The contract's Signature section, written from the text alone: split the header on commas into
 * t and v1, reject t more than 300 s from the receiver's clock, HMAC-SHA256 "<t>.<raw body>" with
 * the endpoint secret, hex, compare in constant time.
 */
export function contractSignatureValid(rawBody: string, header: string | undefined, secret: string, nowMs = Date.now()): boolean {
  if (!header) return false;
  const fields = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]));
  const t = Number(fields.t);
  if (!Number.isInteger(t) || Math.abs(nowMs / 1000 - t) > 300) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${fields.t}.${rawBody}`).digest('hex'));
  const given = Buffer.from(fields.v1 ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A clock tests move by hand. */
export class MovableClock implements Clock {
  constructor(private ms = Date.now()) {}
  now(): Date {
    return new Date(this.ms);
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface WebhooksHarness {
  db: TestDatabase;
  testBus: TestBus;
  prefix: string;
  pool: Pool;
  /** Reads any schema (for assertions on rows). */
  sql: pg.Pool;
  parts: ServicePart[];
  client: Client<typeof WebhooksService>;
  url: string;
  /** Another webhooks part (a second replica) on the same database and bus. */
  addReplica(env?: Record<string, string>, clock?: Clock): Promise<ServicePart>;
  /** A client of one replica (listening on loopback for it), as the gateway would call it. */
  clientOf(part: ServicePart): Promise<Client<typeof WebhooksService>>;
  publish(event: EventEnvelope): Promise<void>;
  close(): Promise<void>;
}

const scope = (s: { merchantId: string; projectId: string; mode: Mode }) => s;

export function newScope(mode: Mode = 'test') {
  return scope({ merchantId: newId('mer'), projectId: newId('prj'), mode });
}

export function event(s: ReturnType<typeof newScope>, type = 'payment.successful', object: Record<string, unknown> = {}): EventEnvelope {
  return {
    id: newId('evt'), type, mode: s.mode, merchant_id: s.merchantId, project_id: s.projectId,
    created_at: new Date().toISOString(), data: { object: { id: newId('pay'), object: 'payment', ...object } },
  };
}

/** The webhooks part alone, in this process, on a fresh database and bus, with the given settings. */
export async function startWebhooks(env: Record<string, string> = {}, clock?: Clock): Promise<WebhooksHarness> {
  const db = await createTestDatabase();
  const testBus = await createTestBus();
  const prefix = testBus.nats?.subjectPrefix ?? 'svc.events';
  const pools: Pool[] = [];
  const parts: ServicePart[] = [];
  const sql = new pg.Pool({ connectionString: db.url, max: 3 });
  const logger = createLogger('test-webhooks', process.env.TEST_LOG_LEVEL ?? 'silent');
  // The credential its replicas admit, as every part's do.
  const internalToken = newInternalToken();

  async function addReplica(extra: Record<string, string> = {}, replicaClock = clock): Promise<ServicePart> {
    const config = loadConfig({
      NATS_STREAM: testBus.nats?.stream, NATS_SUBJECT_PREFIX: prefix, WEBHOOK_POLL_MS: '50', INTERNAL_TOKEN: internalToken,
      ...env, ...extra,
    });
    const pool = createPool(db.url, webhooks.PART.schema);
    pools.push(pool);
    await migrate(pool, webhooks.PART.schema, webhooks.PART.dir);
    const part = webhooks.build({ pool, bus: testBus.bus, clock: replicaClock ?? { now: () => new Date() }, logger, config });
    await part.start();
    parts.push(part);
    return part;
  }

  const first = await addReplica();
  const port = await listen(first.server, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  return {
    db, testBus, prefix, pool: pools[0], sql, parts, url,
    client: createClient(WebhooksService, createPeerTransport(url, internalToken)),
    addReplica,
    async clientOf(part) {
      if (part === first) return createClient(WebhooksService, createPeerTransport(url, internalToken));
      const replicaPort = await listen(part.server, 0, '127.0.0.1');
      return createClient(WebhooksService, createPeerTransport(`http://127.0.0.1:${replicaPort}`, internalToken));
    },
    publish: (e) => publishEvent(testBus.bus, prefix, e),
    async close() {
      for (const part of parts) await part.close();
      await Promise.all(pools.map((p) => p.end()));
      await sql.end();
      await testBus.close();
      await db.drop();
    },
  };
}

export async function publishEvent(bus: EventBus, prefix: string, e: EventEnvelope): Promise<void> {
  await bus.publish({ subject: eventSubject(prefix, e.type), msgId: e.id, data: Buffer.from(JSON.stringify(e)) });
}

/** Polls until `check` returns a value other than undefined (helpers/eventually, argument order of these tests). */
export function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  return pollUntil(what, check, timeoutMs);
}
