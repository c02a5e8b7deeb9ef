import { MAX_ALLOWLIST_ENTRIES, normaliseEntry } from '../services/contract/allowlist-entry.js';
import { id, MODES, required, SHOWN_ONCE, type Command } from './command.js';
import { OUTBOX_COMMANDS } from './outbox-commands.js';
import { OVERVIEW_COMMANDS, verificationWords } from './overview-commands.js';
import { PROVIDER_COMMANDS } from './provider-commands.js';
import { ROUTING_REPORT_COMMANDS } from './routing-report-commands.js';
import { ROUTING_RULE_COMMANDS } from './routing-rule-commands.js';
import { SANDBOX_COMMANDS } from './sandbox-commands.js';
import { SETTLEMENT_COMMANDS } from './settlement-commands.js';
import { WEBHOOK_COMMANDS } from './webhook-commands.js';

// The command table of `svc`: what each command takes, which API call it makes, how it reads to a
// person. Merchants, keys and allow-lists here; routing rules, provider accounts, settlements, webhooks
// and the outbox in their own files.

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

export const COMMANDS: Command[] = [
  ...OVERVIEW_COMMANDS,
  {
    words: ['merchant', 'create'],
    summary: 'create a merchant with its default project',
    synopsis: '--name NAME',
    options: ['name'],
    positionals: [],
    check: (values) => required(values, 'name'),
    call: (api, values) => api.request('POST', '/merchants', { name: values.name }),
    human: (body) => [
      `merchant ${body.merchant.id}  ${body.merchant.name} (${verificationWords(body.merchant)})`,
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
    human: (body) => [`merchant ${body.id}  ${body.name} (${verificationWords(body)})`],
  },
  {
    words: ['merchant', 'reject'],
    summary: 'reject a merchant\'s pending business verification; the merchant reads the reason and may submit again',
    synopsis: 'MER_ID --reason TEXT',
    options: ['reason'],
    positionals: ['MER_ID'],
    check: (values) => required(values, 'reason'),
    call: (api, values, [merchantId]) => api.request('POST', `/merchants/${id(merchantId)}/reject`, { reason: values.reason }),
    human: (body) => [`verification ${body.id}  ${body.company_name} (${body.status}: ${body.rejection_reason})`],
  },
  {
    words: ['merchant', 'sign-in-link'],
    summary: 'print a one-time link that signs in to the dashboard as an owner of the merchant (works once, within a day)',
    synopsis: 'MER_ID',
    options: [],
    positionals: ['MER_ID'],
    check: () => undefined,
    call: (api, _values, [merchantId]) => api.request('POST', `/merchants/${id(merchantId)}/owner-links`),
    human: (body) => [
      `dashboard sign-in link for an owner of merchant ${body.merchant_id} (works once, until ${body.expires_at};`,
      'open it, then choose the email and password you will sign in with):',
      `  ${body.url}`,
      'This link is shown once: it cannot be shown again; ask for a new one if it is lost.',
    ],
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
  ...SANDBOX_COMMANDS,
  ...ROUTING_REPORT_COMMANDS,
  ...PROVIDER_COMMANDS,
  ...SETTLEMENT_COMMANDS,
  ...WEBHOOK_COMMANDS,
  ...OUTBOX_COMMANDS,
];

export const COMMON_OPTIONS = '[--json] [--api-url URL]';

export function usageOf(command: Command): string {
  return ['svc', ...command.words, command.synopsis, COMMON_OPTIONS].filter(Boolean).join(' ');
}

export function findCommand(group: string | undefined, action: string | undefined): Command | undefined {
  // A one-word command takes no action word: what follows is a positional, for it to accept or refuse.
  return COMMANDS.find((c) => c.words[0] === group && (c.words.length === 1 || c.words[1] === action));
}

export function groupCommands(group: string | undefined): Command[] {
  return COMMANDS.filter((c) => c.words[0] === group);
}

// `svc --help` fits a terminal of this many columns.
export const HELP_WIDTH = 100;

/** `text` broken between words into lines of at most `width` columns, the first after `first`, the rest after `rest`. */
export function wrapWords(text: string, first: string, rest: string, width = HELP_WIDTH): string[] {
  const lines: string[] = [];
  let line = first;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const indent = lines.length === 0 ? first : rest;
    if (line.length > indent.length && line.length + 1 + word.length > width) {
      lines.push(line);
      line = `${rest}${word}`;
    } else line = line.length > indent.length ? `${line} ${word}` : `${line}${word}`;
  }
  lines.push(line);
  return lines;
}

/** Each command's usage (without the common options) and, indented below, its summary; groups apart. */
function commandList(): string[] {
  return COMMANDS.flatMap((c, i) => [
    ...(i > 0 && COMMANDS[i - 1].words[0] !== c.words[0] ? [''] : []),
    ...wrapWords(usageOf(c).slice(0, -COMMON_OPTIONS.length - 1), '  ', '      '),
    ...wrapWords(c.summary, '        ', '        '),
  ]);
}

export function generalUsage(): string {
  const lines = commandList();
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
    '  --api-url URL  the deployment (default: SVC_URL, else where npm start listens, read from',
    '                 <DATA_DIR or .data>/base-url, else http://127.0.0.1:8080)',
    '',
    'The operator token comes from SVC_OPERATOR_TOKEN, else <DATA_DIR or .data>/operator-token',
    'in the current folder (written by `npm start`). There is no --token flag: argv is visible in ps.',
    '',
    'For developers, with a merchant\'s test key instead (svc listen --help):',
    '  svc listen --forward-to URL   forward the project\'s events, signed, to a local URL',
    '  svc trigger EVENT_TYPE        run a sandbox flow that emits the event',
    '',
    'Offline, against no deployment (svc routing simulate --help):',
    '  svc routing simulate [--payments N] [--seed S]   compare the routing strategies on a synthetic day',
  ].join('\n');
}
