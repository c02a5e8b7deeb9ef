import type { ManagementClient } from './client.js';

/** The command table of `svc`: what each command takes, which API call it makes, how it reads to a person. */

type Values = Record<string, string | undefined>;

export interface Command {
  /** The words that select it, e.g. ['key', 'create']. */
  words: [string, string];
  summary: string;
  /** Arguments after the words, as shown in usage. */
  synopsis: string;
  /** Its own string options; --json, --url and --help are common to all commands. */
  options: string[];
  /** Names of the positional arguments it requires, in order. */
  positionals: string[];
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

function keyLine(key: any): string {
  const state = key.revoked_at ? `revoked ${key.revoked_at}` : 'active';
  return `${key.id}  ${key.mode.padEnd(4)}  ${key.prefix}…  ${state.padEnd(6)}  ${key.name}`;
}

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
];

export const COMMON_OPTIONS = '[--json] [--url URL]';

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
    '  --json      print the API response as one JSON object on stdout',
    `  --url URL   the deployment (default: SVC_URL, else http://127.0.0.1:8080)`,
    '',
    'The operator token comes from SVC_OPERATOR_TOKEN, else <DATA_DIR or .data>/operator-token',
    'in the current folder (written by `npm start`). There is no --token flag: argv is visible in ps.',
  ].join('\n');
}
