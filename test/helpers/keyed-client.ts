import { setTimeout as sleep } from 'node:timers/promises';

// A merchant's client as the contract tells it to behave: a request with an Idempotency-Key is
// sent again, with the same key and body, after a 5xx, a 429 (idempotency_in_progress or rate
// limit) or a connection error, with backoff, until a definitive 2xx or 4xx; it gives up only
// after a cap on the total wait.

export interface KeyedRequest {
  /** Where each try goes: read again before every try, so a test can move clients to another gateway. */
  baseUrl: () => string;
  method: string;
  path: string;
  apiKey: string;
  idempotencyKey: string;
  body?: unknown;
  /** Total time before giving up. */
  totalMs?: number;
  /** One try's deadline: a gateway that hangs counts as a lost connection. */
  tryTimeoutMs?: number;
}

export interface KeyedOutcome {
  /** The definitive answer's status; 0 when the client gave up. */
  status: number;
  body: any;
  tries: number;
  /** Every try's answer in order, e.g. "500 internal_error", "conn fetch failed", for failure messages. */
  history: string[];
  gaveUp: boolean;
}

const FIRST_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 1000;

function retryable(status: number): boolean {
  return status >= 500 || status === 429;
}

/** Retry-After in ms when the answer names one, else the exponential backoff. */
function waitBefore(tryNumber: number, retryAfter: string | null): number {
  const backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** tryNumber);
  const seconds = retryAfter === null ? NaN : Number(retryAfter);
  return Number.isFinite(seconds) ? Math.max(backoff, Math.min(seconds * 1000, 2 * MAX_BACKOFF_MS)) : backoff;
}

async function tryOnce(req: KeyedRequest): Promise<{ status: number; body: any; retryAfter: string | null }> {
  const res = await fetch(`${req.baseUrl()}${req.path}`, {
    method: req.method,
    headers: {
      authorization: `Bearer ${req.apiKey}`,
      'idempotency-key': req.idempotencyKey,
      ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: req.body === undefined ? undefined : JSON.stringify(req.body),
    signal: AbortSignal.timeout(req.tryTimeoutMs ?? 15_000),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (an answer outside the envelope): kept as text for the failure message.
  }
  return { status: res.status, body, retryAfter: res.headers.get('retry-after') };
}

export async function keyedRequest(req: KeyedRequest): Promise<KeyedOutcome> {
  const deadline = Date.now() + (req.totalMs ?? 60_000);
  const history: string[] = [];
  for (let tries = 1; ; tries++) {
    let retryAfter: string | null = null;
    try {
      const answer = await tryOnce(req);
      history.push(`${answer.status} ${answer.body?.error?.code ?? ''}`.trim());
      if (!retryable(answer.status)) return { status: answer.status, body: answer.body, tries, history, gaveUp: false };
      retryAfter = answer.retryAfter;
    } catch (err) {
      history.push(`conn ${(err as Error).message}`);
    }
    const wait = waitBefore(tries - 1, retryAfter);
    if (Date.now() + wait > deadline) return { status: 0, body: undefined, tries, history, gaveUp: true };
    await sleep(wait);
  }
}
