import { MAX_ALLOWLIST_ENTRIES, normaliseEntry } from '../edge/ip-allowlist.js';
import type { ManagementClient } from './client.js';

/** The command table of `svc`: what each command takes, which API call it makes, how it reads to a person. */

type Values = Record<string, string | undefined>;

export interface Command {
  /** The words that select it, e.g. ['key', 'create']. */
  words: [string, string];
  summary: string;
  /** Arguments after the words, as shown in usage. */
  synopsis: string;
  /** Its own string options; --json, --api-url and --help are common to all commands. */
  options: string[];
  /** Names of the positional arguments it requires, in order. */
  positionals: string[];
  /** Takes any number of further positionals (allow-list entries); otherwise an extra one is a usage mistake. */
  variadic?: boolean;
  /** A usage mistake in the parsed values, or undefined when they are fine. */
  check(values: Values, positionals: string[]): string | undefined;
  call(api: ManagementClient, values: Values, positionals: string[]): Promise<any>;
  /** The result for a person; --json prints the body instead. */
  human(body: any): string[];
}

const MODES = ['test', 'live'];

export const SHOWN_ONCE = 'This secret is shown once: store it now, it cannot be shown again.';

function required(values: Values, ...names: string[]): string | undefined {
  const missing = names.find((n) => values[n] === undefined || values[n]!.trim() === '');
  return missing ? `--${missing} is required` : undefined;
}

const id = (value: string) => encodeURIComponent(value);

/** `--per-minute`: a whole number ≥ 1, or `default` (null: the deployment's ceiling); undefined if neither. */
function perMinuteOf(value: string): number | null | undefined {
  if (value.trim() === 'default') return null;
  return /^\s*\d+\s*$/.test(value) && Number(value) >= 1 ? Number(value) : undefined;
}

// The gateway's own parser, so an entry refused here is exactly one the API would refuse with 422.
function allowlistProblem(entries: string[]): string | undefined {
  if (entries.length > MAX_ALLOWLIST_ENTRIES) {
    return `an allow-list holds at most ${MAX_ALLOWLIST_ENTRIES} entries, got ${entries.length}; use CIDR ranges to cover more`;
  }
  const bad = entries.find((entry) => normaliseEntry(entry) === undefined);
  return bad === undefined
    ? undefined
    : `"${bad}" is not an IP address or CIDR range (examples: 203.0.113.7, 10.0.0.0/8, 2001:db8::/32)`;
}

function allowlistLines(body: any): string[] {
  if (body.entries.length === 0) return [`project ${body.project_id}  IP allow-list: empty, requests from any address are accepted`];
  return [`project ${body.project_id}  IP allow-list (${body.entries.length}):`, ...body.entries.map((e: string) => `  ${e}`)];
}

function keyLine(key: any): string {
  const state = key.revoked_at ? `revoked ${key.revoked_at}` : 'active';
  return `${key.id}  ${key.mode.padEnd(4)}  ${key.prefix}…  ${state.padEnd(6)}  ${key.name}`;
}

// --- routing rules (issue 4) ---
// ManagementClient.request is typed for the methods earlier commands needed; fetch takes any.
const del = (api: ManagementClient, path: string): Promise<any> =>
  (api.request as (method: string, path: string) => Promise<any>)('DELETE', path);

const csv = (value: string | undefined): string[] | undefined =>
  value === undefined ? undefined : value.split(',').map((v) => v.trim()).filter(Boolean);

const wholeOf = (value: string | undefined): number | undefined =>
  value !== undefined && /^\s*\d+\s*$/.test(value) ? Number(value) : undefined;

function ruleProblem(values: Values): string | undefined {
  const missing = required(values, 'project', 'mode', 'name', 'priority', 'providers');
  if (missing) return missing;
  if (!MODES.includes(values.mode!)) return `--mode must be test or live, got "${values.mode}"`;
  for (const name of ['priority', 'min-amount', 'max-amount']) {
    if (values[name] !== undefined && wholeOf(values[name]) === undefined) {
      return `--${name} must be a whole number, got "${values[name]}"`;
    }
  }
  return csv(values.providers)!.length === 0 ? '--providers must name at least one provider' : undefined;
}

function modeProblem(values: Values): string | undefined {
  return required(values, 'project', 'mode') ??
    (MODES.includes(values.mode!) ? undefined : `--mode must be test or live, got "${values.mode}"`);
}

function ruleLine(rule: any): string {
  const conditions = [
    rule.currencies.length > 0 && `currency ${rule.currencies.join('|')}`,
    rule.countries.length > 0 && `country ${rule.countries.join('|')}`,
    rule.payment_method_types.length > 0 && `method ${rule.payment_method_types.join('|')}`,
    (rule.min_amount !== null || rule.max_amount !== null) && `amount ${rule.min_amount ?? 0}..${rule.max_amount ?? '∞'}`,
  ].filter(Boolean);
  const when = conditions.length > 0 ? conditions.join(', ') : 'any payment';
  return `${rule.id}  ${rule.mode.padEnd(4)}  #${rule.priority}  ${rule.name}: ${when} -> ${rule.providers.join(', ')}`;
}

const ROUTING_RULE_COMMANDS: Command[] = [
  {
    words: ['routing-rule', 'create'],
    summary: 'add a routing rule, lowest priority tried first; MATCH: --currencies, --countries, ' +
      '--methods (comma lists), --min-amount, --max-amount (inclusive, minor units)',
    synopsis: '--project PRJ_ID --mode test|live --name NAME --priority N --providers P,... [MATCH]',
    options: ['project', 'mode', 'name', 'priority', 'providers', 'currencies', 'countries', 'methods', 'min-amount',
      'max-amount'],
    positionals: [],
    check: ruleProblem,
    call: (api, values) => api.request('POST', `/projects/${id(values.project!)}/routing-rules`, {
      mode: values.mode,
      name: values.name,
      priority: wholeOf(values.priority),
      providers: csv(values.providers),
      currencies: csv(values.currencies),
      countries: csv(values.countries),
      payment_method_types: csv(values.methods),
      min_amount: wholeOf(values['min-amount']),
      max_amount: wholeOf(values['max-amount']),
    }),
    human: (body) => [ruleLine(body)],
  },
  {
    words: ['routing-rule', 'list'],
    summary: 'list a project\'s routing rules of one mode, in the order they are tried',
    synopsis: '--project PRJ_ID --mode test|live',
    options: ['project', 'mode'],
    positionals: [],
    check: modeProblem,
    call: (api, values) =>
      api.request('GET', `/projects/${id(values.project!)}/routing-rules?mode=${id(values.mode!)}`),
    human: (body) => (body.data.length === 0 ? ['no routing rules: the default rule routes every payment'] : body.data.map(ruleLine)),
  },
  {
    words: ['routing-rule', 'delete'],
    summary: 'delete a routing rule',
    synopsis: 'RULE_ID --project PRJ_ID --mode test|live',
    options: ['project', 'mode'],
    positionals: ['RULE_ID'],
    check: modeProblem,
    call: (api, values, [ruleId]) =>
      del(api, `/projects/${id(values.project!)}/routing-rules/${id(ruleId)}?mode=${id(values.mode!)}`),
    human: (body) => [`deleted ${ruleLine(body)}`],
  },
];

// --- webhooks (issue 5) ---
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
  if (!creating && values.url === undefined && values.events === undefined && values.description === undefined) {
    return 'nothing to change: give --url, --events or --description';
  }
  return undefined;
}

function endpointLine(e: any): string {
  const events = e.events.length === 1 && e.events[0] === '*' ? 'all events' : e.events.join(', ');
  return `${e.id}  ${e.mode.padEnd(4)}  ${e.status.padEnd(8)}  ${e.url}  <- ${events}`;
}

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

const WEBHOOK_COMMANDS: Command[] = [
  {
    words: ['endpoint', 'create'],
    summary: 'register a webhook endpoint; EVENTS is a comma list of event types or * for all; its signing secret is shown once',
    synopsis: '--project PRJ_ID --mode test|live --url URL --events EVENTS [--description TEXT]',
    options: ['project', 'mode', 'url', 'events', 'description'],
    positionals: [],
    check: (values) => endpointProblem(values, true),
    call: (api, values) => api.request('POST', `/projects/${id(values.project!)}/webhook-endpoints`, {
      mode: values.mode, url: values.url, events: csv(values.events), description: values.description,
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
    summary: 'change a webhook endpoint\'s URL, subscribed events or description',
    synopsis: 'ENDPOINT_ID --project PRJ_ID --mode test|live [--url URL] [--events EVENTS] [--description TEXT]',
    options: ['project', 'mode', 'url', 'events', 'description'],
    positionals: ['ENDPOINT_ID'],
    check: (values) => endpointProblem(values, false),
    call: (api, values, [endpointId]) => api.request('POST', scoped(`/webhook-endpoints/${id(endpointId)}`, values), {
      url: values.url, events: csv(values.events), description: values.description,
    }),
    human: (body) => [endpointLine(body)],
  },
  endpointAction('disable', 'stop sending to a webhook endpoint (its pending retries wait until it is enabled)'),
  endpointAction('enable', 'resume sending to a webhook endpoint'),
  endpointAction('rotate-secret', 'issue a new signing secret at once (shown once); the old one stops signing'),
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
      (values.limit !== undefined && !(wholeOf(values.limit)! >= 1 && wholeOf(values.limit)! <= 200)
        ? `--limit must be a whole number from 1 to 200, got "${values.limit}"` : undefined),
    call: (api, values) => api.request('GET', scoped('/webhook-deliveries', values, {
      endpoint_id: values.endpoint, event_type: values['event-type'], status: values.status, limit: values.limit,
      cursor: values.cursor,
    })),
    human: (body) => [
      ...(body.data.length === 0 ? ['no deliveries'] : body.data.map(deliveryLine)),
      ...(body.next_cursor ? [`more: --cursor ${body.next_cursor}`] : []),
    ],
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

export const COMMANDS: Command[] = [
  {
    words: ['merchant', 'create'],
    summary: 'create a merchant with its default project',
    synopsis: '--name NAME',
    options: ['name'],
    positionals: [],
    check: (values) => required(values, 'name'),
    call: (api, values) => api.request('POST', '/merchants', { name: values.name }),
    human: (body) => [
      `merchant ${body.merchant.id}  ${body.merchant.name} (verification: ${body.merchant.verification_status})`,
      `project  ${body.project.id}  ${body.project.name}`,
      `next: svc key create --project ${body.project.id} --mode test --name NAME`,
    ],
  },
  {
    words: ['merchant', 'verify'],
    summary: 'approve a merchant\'s business verification, which allows live keys',
    synopsis: 'MER_ID',
    options: [],
    positionals: ['MER_ID'],
    check: () => undefined,
    call: (api, _values, [merchantId]) => api.request('POST', `/merchants/${id(merchantId)}/verify`),
    human: (body) => [`merchant ${body.id}  ${body.name} (verification: ${body.verification_status})`],
  },
  {
    words: ['key', 'create'],
    summary: 'create an API key; its secret is shown once',
    synopsis: '--project PRJ_ID --mode test|live --name NAME',
    options: ['project', 'mode', 'name'],
    positionals: [],
    check: (values) =>
      required(values, 'project', 'mode', 'name') ??
      (MODES.includes(values.mode!) ? undefined : `--mode must be test or live, got "${values.mode}"`),
    call: (api, values) =>
      api.request('POST', `/projects/${id(values.project!)}/keys`, { mode: values.mode, name: values.name }),
    human: (body) => [
      `key ${body.id}  ${body.mode}  ${body.name}  (project ${body.project_id})`,
      `secret: ${body.secret}`,
      SHOWN_ONCE,
    ],
  },
  {
    words: ['key', 'revoke'],
    summary: 'revoke an API key for good',
    synopsis: 'KEY_ID',
    options: [],
    positionals: ['KEY_ID'],
    check: () => undefined,
    call: (api, _values, [keyId]) => api.request('POST', `/keys/${id(keyId)}/revoke`),
    human: (body) => [`key ${body.id} revoked at ${body.revoked_at}`],
  },
  {
    words: ['key', 'list'],
    summary: 'list a project\'s API keys (never their secrets)',
    synopsis: '--project PRJ_ID',
    options: ['project'],
    positionals: [],
    check: (values) => required(values, 'project'),
    call: (api, values) => api.request('GET', `/projects/${id(values.project!)}/keys`),
    human: (body) => (body.data.length === 0 ? ['no keys'] : body.data.map(keyLine)),
  },
  {
    words: ['key', 'rate-limit'],
    summary: 'set an API key\'s own requests-per-minute ceiling, or return it to the deployment default',
    synopsis: 'KEY_ID --per-minute N|default',
    options: ['per-minute'],
    positionals: ['KEY_ID'],
    check: (values) =>
      required(values, 'per-minute') ??
      (perMinuteOf(values['per-minute']!) === undefined
        ? `--per-minute must be a whole number of at least 1, or "default"; got "${values['per-minute']}"`
        : undefined),
    call: (api, values, [keyId]) =>
      api.request('PUT', `/keys/${id(keyId)}/rate-limit`, { per_minute: perMinuteOf(values['per-minute']!) }),
    human: (body) => [
      `key ${body.id}  rate limit: ${body.rate_limit_per_minute === null
        ? 'the deployment default (RATE_LIMIT_PER_MINUTE)'
        : `${body.rate_limit_per_minute} requests per minute`}`,
    ],
  },
  {
    words: ['allowlist', 'set'],
    summary: 'replace a project\'s IP allow-list; with no entries, lift the restriction',
    synopsis: '--project PRJ_ID [ENTRY...]',
    options: ['project'],
    positionals: [],
    variadic: true,
    check: (values, entries) => required(values, 'project') ?? allowlistProblem(entries),
    call: (api, values, entries) => api.request('PUT', `/projects/${id(values.project!)}/allowlist`, { entries }),
    human: allowlistLines,
  },
  {
    words: ['allowlist', 'show'],
    summary: 'show a project\'s IP allow-list',
    synopsis: '--project PRJ_ID',
    options: ['project'],
    positionals: [],
    check: (values) => required(values, 'project'),
    call: (api, values) => api.request('GET', `/projects/${id(values.project!)}/allowlist`),
    human: allowlistLines,
  },
  ...ROUTING_RULE_COMMANDS,
  ...WEBHOOK_COMMANDS,
];

export const COMMON_OPTIONS = '[--json] [--api-url URL]';

export function usageOf(command: Command): string {
  return `svc ${command.words.join(' ')} ${command.synopsis} ${COMMON_OPTIONS}`;
}

export function findCommand(group: string | undefined, action: string | undefined): Command | undefined {
  return COMMANDS.find((c) => c.words[0] === group && c.words[1] === action);
}

export function groupCommands(group: string | undefined): Command[] {
  return COMMANDS.filter((c) => c.words[0] === group);
}

export function generalUsage(): string {
  const width = Math.max(...COMMANDS.map((c) => usageOf(c).length - COMMON_OPTIONS.length - 1));
  const lines = COMMANDS.map((c) => `  ${usageOf(c).slice(0, -COMMON_OPTIONS.length - 1).padEnd(width)}  ${c.summary}`);
  return [
    'usage: svc <command> [options]',
    '',
    'Manages a running svc deployment through its management API.',
    '',
    'commands:',
    ...lines,
    '',
    'options (every command):',
    '  --json         print the API response as one JSON object on stdout',
    `  --api-url URL  the deployment (default: SVC_URL, else http://127.0.0.1:8080)`,
    '',
    'The operator token comes from SVC_OPERATOR_TOKEN, else <DATA_DIR or .data>/operator-token',
    'in the current folder (written by `npm start`). There is no --token flag: argv is visible in ps.',
  ].join('\n');
}
