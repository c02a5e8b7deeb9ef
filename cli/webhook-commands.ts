import {
  csv, id, limitProblem, MODES, modeProblem, pageLines, required, SHOWN_ONCE, type Command, type Values,
} from './command.js';

// `svc endpoint …` and `svc delivery …`: webhook endpoints and their delivery history.
// The deployment's own address is the common `--api-url`, so `--url` here is the endpoint's.

const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed', 'exhausted'];

const scoped = (path: string, values: Values, query: Record<string, string | undefined> = {}) => {
  const params = new URLSearchParams({ mode: values.mode! });
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, v);
  return `/projects/${id(values.project!)}${path}?${params}`;
};

function endpointProblem(values: Values, creating: boolean): string | undefined {
  const missing = creating ? required(values, 'project', 'mode', 'url', 'events') : modeProblem(values);
  if (missing) return missing;
  if (!MODES.includes(values.mode!)) return `--mode must be test or live, got "${values.mode}"`;
  if (values.events !== undefined && csv(values.events)!.length === 0) {
    return '--events must list event types (comma-separated), or * for all of them';
  }
  if (!creating && values.url === undefined && values.events === undefined && values.description === undefined &&
    values['max-per-second'] === undefined) {
    return 'nothing to change: give --url, --events, --description or --max-per-second';
  }
  return rateProblem(values);
}

function endpointLine(e: any): string {
  const events = e.events.length === 1 && e.events[0] === '*' ? 'all events' : e.events.join(', ');
  const rate = e.max_deliveries_per_second ? `  max ${e.max_deliveries_per_second}/s` : '';
  const why = e.disabled_reason === 'failing' ? `  (disabled ${e.disabled_at}: every delivery failed since ${e.failing_since ?? '?'})` : '';
  const h = e.health;
  const health = h ? `  24h: ${h.success_rate_24h === null ? 'no attempts' : `${Math.round(h.success_rate_24h * 100)}% of ${h.attempts_24h} ok`}` +
    `${h.pending_deliveries ? `, ${h.pending_deliveries} pending${h.next_retry_at ? `, next ${h.next_retry_at}` : ''}` : ''}` : '';
  return `${e.id}  ${e.mode.padEnd(4)}  ${e.status.padEnd(8)}  ${e.url}  <- ${events}${rate}${health}${why}`;
}

function rateProblem(values: Values): string | undefined {
  const rate = values['max-per-second'];
  if (rate === undefined) return undefined;
  return /^\d{1,5}$/.test(rate) && Number(rate) <= 10_000
    ? undefined : `--max-per-second must be 0 (no limit) to 10000 deliveries per second, got "${rate}"`;
}

const rateOf = (values: Values) => (values['max-per-second'] === undefined ? undefined : Number(values['max-per-second']));

const withSecret = (body: any) => [endpointLine(body), `signing secret: ${body.secret}`, SHOWN_ONCE];

function deliveryLine(d: any): string {
  const last = d.last_response_status !== null ? `HTTP ${d.last_response_status}` : (d.last_error ?? '');
  const next = d.next_attempt_at ? `  next attempt ${d.next_attempt_at}` : '';
  return `${d.id}  ${d.status.padEnd(10)}  ${d.event_type}  ${d.event_id}  -> ${d.endpoint_id}  ` +
    `attempts ${d.attempt_count}${last ? `  last: ${last}` : ''}${next}`;
}

function attemptLine(a: any): string {
  const result = a.response_status !== null ? `HTTP ${a.response_status}` : `error: ${a.error}`;
  const body = a.response_body ? `  ${JSON.stringify(a.response_body.slice(0, 80))}` : '';
  return `  #${a.attempt_number}${a.manual ? ' (resend)' : ''}  ${a.started_at}  ${result}  ${a.duration_ms} ms${body}`;
}

const endpointAction = (action: string, summary: string): Command => ({
  words: ['endpoint', action],
  summary,
  synopsis: 'ENDPOINT_ID --project PRJ_ID --mode test|live',
  options: ['project', 'mode'],
  positionals: ['ENDPOINT_ID'],
  check: modeProblem,
  call: (api, values, [endpointId]) =>
    api.request('POST', scoped(`/webhook-endpoints/${id(endpointId)}/${action}`, values)),
  human: action === 'rotate-secret' ? withSecret : (body) => [endpointLine(body)],
});

export const WEBHOOK_COMMANDS: Command[] = [
  {
    words: ['endpoint', 'create'],
    summary: 'register a webhook endpoint; EVENTS is a comma list of event types or * for all; its signing secret is shown once',
    synopsis: '--project PRJ_ID --mode test|live --url URL --events EVENTS [--description TEXT] [--max-per-second N]',
    options: ['project', 'mode', 'url', 'events', 'description', 'max-per-second'],
    positionals: [],
    check: (values) => endpointProblem(values, true),
    call: (api, values) => api.request('POST', `/projects/${id(values.project!)}/webhook-endpoints`, {
      mode: values.mode, url: values.url, events: csv(values.events), description: values.description,
      max_deliveries_per_second: rateOf(values),
    }),
    human: withSecret,
  },
  {
    words: ['endpoint', 'list'],
    summary: 'list a project\'s webhook endpoints of one mode (never their secrets)',
    synopsis: '--project PRJ_ID --mode test|live',
    options: ['project', 'mode'],
    positionals: [],
    check: modeProblem,
    call: (api, values) => api.request('GET', scoped('/webhook-endpoints', values)),
    human: (body) => (body.data.length === 0 ? ['no webhook endpoints'] : body.data.map(endpointLine)),
  },
  {
    words: ['endpoint', 'update'],
    summary: 'change a webhook endpoint\'s URL, subscribed events, description or maximum deliveries per second (0: no limit)',
    synopsis: 'ENDPOINT_ID --project PRJ_ID --mode test|live [--url URL] [--events EVENTS] [--description TEXT] ' +
      '[--max-per-second N]',
    options: ['project', 'mode', 'url', 'events', 'description', 'max-per-second'],
    positionals: ['ENDPOINT_ID'],
    check: (values) => endpointProblem(values, false),
    call: (api, values, [endpointId]) => api.request('POST', scoped(`/webhook-endpoints/${id(endpointId)}`, values), {
      url: values.url, events: csv(values.events), description: values.description, max_deliveries_per_second: rateOf(values),
    }),
    human: (body) => [endpointLine(body)],
  },
  endpointAction('disable', 'stop sending to a webhook endpoint (its pending retries wait until it is enabled)'),
  endpointAction('enable', 'resume sending to a webhook endpoint'),
  endpointAction('rotate-secret', 'issue a new signing secret at once (shown once); the old one stops signing'),
  {
    words: ['endpoint', 'recover'],
    summary: 'resend every failed or exhausted delivery of an enabled endpoint created since TIME (same event ids), in the background; one recovery at a time',
    synopsis: 'ENDPOINT_ID --project PRJ_ID --mode test|live --since TIME',
    options: ['project', 'mode', 'since'],
    positionals: ['ENDPOINT_ID'],
    check: (values) => modeProblem(values) ?? required(values, 'since') ??
      (Number.isNaN(Date.parse(values.since!)) ? `--since must be a time such as 2026-11-20T10:00:00Z, got "${values.since}"` : undefined),
    call: (api, values, [endpointId]) =>
      api.request('POST', scoped(`/webhook-endpoints/${id(endpointId)}/recover`, values), { since: values.since!.trim() }),
    human: (body) => [body.joined
      ? `${body.endpoint_id}: a recovery started at ${body.started_at} is ${body.status}: ${body.resent} of ${body.deliveries} resent (nothing new started)`
      : `${body.endpoint_id}: ${body.deliveries} failed deliveries since ${body.since} are being resent`],
  },
  {
    words: ['delivery', 'list'],
    summary: 'webhook deliveries, newest first; filter by --endpoint, --event-type, --status',
    synopsis: '--project PRJ_ID --mode test|live [--endpoint ENDPOINT_ID] [--event-type TYPE] [--status STATUS] ' +
      '[--limit N] [--cursor CURSOR]',
    options: ['project', 'mode', 'endpoint', 'event-type', 'status', 'limit', 'cursor'],
    positionals: [],
    check: (values) => modeProblem(values) ??
      (values.status !== undefined && !DELIVERY_STATUSES.includes(values.status)
        ? `--status must be one of ${DELIVERY_STATUSES.join(', ')}; got "${values.status}"` : undefined) ??
      limitProblem(values),
    call: (api, values) => api.request('GET', scoped('/webhook-deliveries', values, {
      endpoint_id: values.endpoint, event_type: values['event-type'], status: values.status, limit: values.limit,
      cursor: values.cursor,
    })),
    human: (body) => pageLines(body, deliveryLine, 'no deliveries'),
  },
  {
    words: ['delivery', 'show'],
    summary: 'one webhook delivery with every attempt: headers sent, response status and body, error, duration',
    synopsis: 'DELIVERY_ID --project PRJ_ID --mode test|live',
    options: ['project', 'mode'],
    positionals: ['DELIVERY_ID'],
    check: modeProblem,
    call: (api, values, [deliveryId]) => api.request('GET', scoped(`/webhook-deliveries/${id(deliveryId)}`, values)),
    human: (body) => [deliveryLine(body), ...body.attempts.map(attemptLine)],
  },
  {
    words: ['delivery', 'resend'],
    summary: 'send a delivery again now, same event id and body (also exhausted ones and to disabled endpoints)',
    synopsis: 'DELIVERY_ID --project PRJ_ID --mode test|live',
    options: ['project', 'mode'],
    positionals: ['DELIVERY_ID'],
    check: modeProblem,
    call: (api, values, [deliveryId]) =>
      api.request('POST', scoped(`/webhook-deliveries/${id(deliveryId)}/resend`, values)),
    human: (body) => [deliveryLine(body), ...(body.attempt ? [attemptLine(body.attempt)] : [])],
  },
];
