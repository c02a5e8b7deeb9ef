import { newId, newSecret } from '../services/platform/ids.js';
import { deliveryHeaders, signatureHeader } from '../services/contract/webhook-delivery.js';
import { ApiError, CliError, createGatewayClient, type ErrorBody } from './client.js';
import { createSseParser, type SseMessage } from './sse.js';

// `svc listen`: streams the project's events from the gateway (GET /v1/test/events/stream, test
// keys only) and forwards each to a local URL, signed with a secret minted here for the session,
// exactly as a delivery to an endpoint is signed and sent (the webhooks part's own headers and
// signer). The secret never leaves this machine: the gateway only streams the bodies.

export interface ListenOptions {
  baseUrl: string;
  apiKey: string;
  forwardTo: string;
  /** The gateway's `events=` filter as given (`payment.successful,refund.*`); all when absent. */
  events?: string;
  /** One JSON object per line instead of lines for a person: kind session (with the secret), ready, reconnected, event. */
  json?: boolean;
  out(line: string): void;
  err(line: string): void;
  /** Aborted on Ctrl-C: the listener stops and resolves 0. */
  signal: AbortSignal;
  fetch?: typeof fetch;
}

const STREAM_PATH = '/v1/test/events/stream';
/** The gateway sends a keep-alive every 15 s; this long without a byte means the stream is dead. */
const IDLE_MS = 45_000;
/** A local endpoint slower than this is reported as timed out, like a real delivery. */
const FORWARD_TIMEOUT_MS = 10_000;
/** Ids remembered so a page resent after a reconnect is not forwarded twice. */
const REMEMBERED_IDS = 10_000;
const RETRY_MS = [1_000, 2_000, 5_000, 10_000];

/** The stream refused the request: a mistake to report (exit 1), not an outage to wait out. */
class Refused extends Error {}

/** The gateway's last message on a stream it ends (routes/event-stream.ts). */
interface StreamEnded {
  reason: string;
  message: string;
}

/** Ends after which the stream is opened again; any other (revoked, ip_not_allowed) stops svc listen. */
const RESUMABLE_ENDS = new Set(['max_lifetime', 'shutting_down']);

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (err instanceof Error && err.name === 'TimeoutError') return 'timed out';
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

/** One event to the local URL: its status or why there was none, and how long it took. */
async function forward(opts: ListenOptions, secret: string, body: string, event: { id: string; type: string }) {
  const delivery = { id: newId('whd'), eventId: event.id, eventType: event.type, attempt: 1, body };
  // fetch computes content-length itself and refuses to be given one.
  const headers = deliveryHeaders(delivery, signatureHeader(secret, body, new Date()))
    .filter(([name]) => name !== 'content-length');
  const started = performance.now();
  try {
    const res = await (opts.fetch ?? fetch)(opts.forwardTo, {
      method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await res.arrayBuffer();
    return { outcome: `${res.status}`, ms: performance.now() - started };
  } catch (err) {
    return { outcome: `error (${causeOf(err)})`, ms: performance.now() - started };
  }
}

async function refusal(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as ErrorBody;
    if (typeof body?.error?.code === 'string') return new ApiError(res.status, body);
  } catch {
    // not the gateway's envelope: described below
  }
  return new ApiError(res.status, {
    error: { type: 'api_error', code: `http_${res.status}`, message: `unexpected reply (HTTP ${res.status}) from ${res.url}` },
  });
}

/** Opens the stream (resuming after `lastEventId`) and handles its messages until it ends. */
async function stream(
  opts: ListenOptions, lastEventId: string, onOpen: () => void, onMessage: (m: SseMessage) => Promise<void>,
): Promise<{ lastEventId: string; reason: string; ended?: StreamEnded }> {
  const idle = new AbortController();
  let timer = setTimeout(() => idle.abort(), IDLE_MS);
  const signal = AbortSignal.any([opts.signal, idle.signal]);
  const query = opts.events ? `?events=${encodeURIComponent(opts.events)}` : '';
  const parser = createSseParser((m) => queue.push(m), lastEventId);
  const queue: SseMessage[] = [];
  try {
    const res = await (opts.fetch ?? fetch)(`${opts.baseUrl}${STREAM_PATH}${query}`, {
      headers: {
        authorization: `Bearer ${opts.apiKey}`, accept: 'text/event-stream',
        ...(lastEventId && { 'last-event-id': lastEventId }),
      },
      signal,
    });
    if (res.status !== 200) {
      const error = await refusal(res);
      // 4xx is the request's fault (a live key, an unknown type): waiting will not change it.
      if (res.status < 500 && res.status !== 429) throw new Refused(`${error.code}: ${error.message}`);
      throw new Error(`${error.code}: ${error.message}`);
    }
    onOpen();
    const decoder = new TextDecoder();
    let ended: StreamEnded | undefined;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      clearTimeout(timer);
      timer = setTimeout(() => idle.abort(), IDLE_MS);
      parser.push(decoder.decode(chunk, { stream: true }));
      while (queue.length > 0) {
        const m = queue.shift()!;
        if (m.event === 'stream_ended') ended = JSON.parse(m.data) as StreamEnded;
        else await onMessage(m);
      }
    }
    if (ended && !RESUMABLE_ENDS.has(ended.reason)) throw new Refused(`${ended.reason}: ${ended.message}`);
    return { lastEventId: parser.lastEventId, reason: ended?.message ?? 'the gateway closed the stream', ended };
  } catch (err) {
    if (err instanceof Refused || opts.signal.aborted) throw err;
    const reason = idle.signal.aborted ? `nothing received for ${IDLE_MS / 1000} s` : causeOf(err);
    return { lastEventId: parser.lastEventId, reason };
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/** Runs until aborted (0), or until the gateway refuses the stream or the key (1). */
export async function listen(opts: ListenOptions): Promise<number> {
  const api = createGatewayClient(opts.baseUrl, '/v1', opts.apiKey, opts.fetch);
  const secret = newSecret('whsec_', 32);
  const seen = new Set<string>();
  try {
    const me = await api.request('GET', '/me');
    if (opts.json) {
      opts.out(JSON.stringify({ kind: 'session', mode: me.mode, project_id: me.project.id, forward_to: opts.forwardTo, events: opts.events ?? '*', secret }));
    } else {
      opts.out(`Forwarding ${me.mode} events of project ${me.project.name} (${me.project.id}) to ${opts.forwardTo}` +
        (opts.events ? ` (events: ${opts.events})` : ''));
      opts.out(`Your webhook signing secret for this session is ${secret} (verify Svc-Signature with it)`);
    }
    let lastEventId = '';
    let failures = 0;
    let opened = false;
    // After a stream's maximum lifetime the next one is opened at once and without a word: to the
    // person, and to what reads --json, it is one session.
    let quiet = false;
    for (;;) {
      const ended = await stream(opts, lastEventId, () => {
        if (!quiet && opts.json) opts.out(JSON.stringify({ kind: opened ? 'reconnected' : 'ready' }));
        else if (!quiet) opts.out(opened ? 'Reconnected.' : 'Ready: listening for events. Press Ctrl-C to stop.');
        opened = true;
        quiet = false;
        failures = 0;
      }, async (m) => {
        const event = JSON.parse(m.data) as { id: string; type: string };
        if (seen.has(event.id)) return;
        seen.add(event.id);
        if (seen.size > REMEMBERED_IDS) seen.delete(seen.values().next().value!);
        const { outcome, ms } = await forward(opts, secret, m.data, event);
        const at = new Date().toISOString();
        opts.out(opts.json
          ? JSON.stringify({ kind: 'event', time: at, type: event.type, event_id: event.id, status: outcome, duration_ms: Math.round(ms) })
          : `${at}  ${event.type.padEnd(18)}  ${event.id}  → ${outcome}  ${Math.round(ms)} ms`);
      });
      lastEventId = ended.lastEventId;
      if (ended.ended?.reason === 'max_lifetime') {
        quiet = true;
        continue;
      }
      quiet = false;
      const wait = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)];
      opts.err(`Stream lost (${ended.reason}); reconnecting in ${wait / 1000} s…`);
      await sleep(wait, opts.signal);
      if (opts.signal.aborted) return 0;
    }
  } catch (err) {
    if (opts.signal.aborted) return 0;
    if (err instanceof Refused) throw new CliError(`the gateway refused or ended the event stream: ${err.message}`);
    throw err;
  }
}
