import { PROVIDERS } from '../services/connectors/providers.js';
import { ApiError } from './client.js';
import { csv, id, MODES, required, wholeOf, type Command, type Values } from './command.js';

// `svc provider connect|list|show|disable|enable|test`: a project's accounts at licensed providers.
// Secrets can come from the environment instead of flags (STRIPE_SECRET_KEY, …), so they stay out
// of shell history and of `ps`; a flag wins over the variable.

interface CredentialOption {
  option: string;
  field: string;
  /** The variable read when the flag is absent (secrets only). */
  env?: string;
  required: boolean;
}

// Each provider's options are its definition's credential fields (connectors/<code>/index.ts), so a
// new provider's connect needs nothing here: --secret-key for secret_key, its env for secrets.
const PROVIDER_OPTIONS: Record<string, CredentialOption[]> = Object.fromEntries(PROVIDERS.map((p) => [
  p.code, p.credentialFields.map((f) => ({ option: f.name.replace(/_/g, '-'), field: f.name, env: f.env, required: f.required })),
]));

/** stripe: --secret-key --webhook-secret [--api-base-url]; …; secrets also from STRIPE_SECRET_KEY, … */
function connectHelp(): string {
  const options = Object.values(PROVIDER_OPTIONS).flat();
  const perProvider = Object.entries(PROVIDER_OPTIONS).map(([code, list]) =>
    `${code}: ${list.map((o) => (o.required ? `--${o.option}` : `[--${o.option}]`)).join(' ')}`);
  const envs = options.flatMap((o) => (o.env ? [o.env] : []));
  return `${perProvider.join('; ')}; secrets also from ${envs.join(', ')}`;
}

const CREDENTIAL_OPTIONS = [...new Set(Object.values(PROVIDER_OPTIONS).flat().map((o) => o.option))];

// The CLI is its own process (bin/svc.js): its environment is process.env.
const valueOf = (values: Values, o: CredentialOption): string | undefined =>
  values[o.option] ?? (o.env ? process.env[o.env] : undefined);

function credentialsOf(values: Values): Record<string, string> {
  const options = PROVIDER_OPTIONS[values.provider!];
  return Object.fromEntries(options.flatMap((o) => {
    const v = valueOf(values, o);
    return v === undefined || v.trim() === '' ? [] : [[o.field, v]];
  }));
}

/** --fee-percent 1.4 is 140 basis points; at most two decimals, at most 100%. */
function basisPointsOf(percent: string | undefined): number | undefined {
  if (percent === undefined || !/^\s*\d{1,3}(\.\d{1,2})?\s*$/.test(percent)) return undefined;
  const bps = Math.round(Number(percent) * 100);
  return bps <= 10_000 ? bps : undefined;
}

function connectProblem(values: Values): string | undefined {
  const missing = required(values, 'project', 'mode', 'provider', 'name');
  if (missing) return missing;
  if (!MODES.includes(values.mode!)) return `--mode must be test or live, got "${values.mode}"`;
  const options = PROVIDER_OPTIONS[values.provider!];
  if (!options) return `--provider must be one of ${Object.keys(PROVIDER_OPTIONS).join(', ')}, got "${values.provider}"`;
  const foreign = CREDENTIAL_OPTIONS.find((o) => values[o] !== undefined && !options.some((p) => p.option === o));
  if (foreign) return `--${foreign} is not a ${values.provider} setting`;
  const absent = options.filter((o) => o.required && (valueOf(values, o) ?? '').trim() === '');
  if (absent.length > 0) {
    return `${values.provider} needs ${absent.map((o) => `--${o.option}${o.env ? ` (or ${o.env})` : ''}`).join(', ')}`;
  }
  if (values['fee-percent'] !== undefined && basisPointsOf(values['fee-percent']) === undefined) {
    return `--fee-percent must be a percentage from 0 to 100 with at most two decimals, got "${values['fee-percent']}"`;
  }
  if (values['fee-fixed'] !== undefined && wholeOf(values['fee-fixed']) === undefined) {
    return `--fee-fixed must be a whole number of minor units, got "${values['fee-fixed']}"`;
  }
  return undefined;
}

function accountLine(a: any): string {
  const restrictions = [
    a.payment_method_types.length > 0 && `methods ${a.payment_method_types.join('|')}`,
    a.currencies.length > 0 && `currencies ${a.currencies.join('|')}`,
    a.countries.length > 0 && `countries ${a.countries.join('|')}`,
  ].filter(Boolean);
  return `${a.id}  ${a.mode.padEnd(4)}  ${a.status.padEnd(8)}  ${a.provider.code}  "${a.name}"  ` +
    `fee ${a.fee_bps / 100}% + ${a.fee_fixed} minor units${restrictions.length > 0 ? `  ${restrictions.join(', ')}` : ''}`;
}

function showLines(a: any): string[] {
  const stored = a.credentials
    ? `credentials: ${a.credentials.fields.join(', ')} (stored encrypted, never shown; updated ${a.credentials.updated_at})`
    : 'credentials: none stored; its payments fail over as provider_unavailable until it is connected again';
  return [accountLine(a), `  project ${a.project_id}  merchant ${a.merchant_id}  created ${a.created_at}`, `  ${stored}`];
}

const accountAction = (action: 'disable' | 'enable', summary: string): Command => ({
  words: ['provider', action],
  summary,
  synopsis: 'PROVIDER_ACCOUNT_ID',
  options: [],
  positionals: ['PROVIDER_ACCOUNT_ID'],
  check: () => undefined,
  call: (api, _values, [accountId]) => api.request('POST', `/provider-accounts/${id(accountId)}/${action}`),
  human: (body) => [accountLine(body)],
});

export const PROVIDER_COMMANDS: Command[] = [
  {
    words: ['provider', 'connect'],
    summary: `connect an account at a licensed provider; ${connectHelp()}`,
    synopsis: `--project PRJ_ID --mode test|live --provider ${Object.keys(PROVIDER_OPTIONS).join('|')} --name NAME [CREDENTIALS] ` +
      '[--methods M,...] [--currencies C,...] [--countries C,...] [--fee-percent P] [--fee-fixed N]',
    options: ['project', 'mode', 'provider', 'name', ...CREDENTIAL_OPTIONS, 'methods', 'currencies', 'countries',
      'fee-percent', 'fee-fixed'],
    positionals: [],
    check: connectProblem,
    call: (api, values) => api.request('POST', `/projects/${id(values.project!)}/provider-accounts`, {
      mode: values.mode,
      provider: values.provider,
      name: values.name,
      credentials: credentialsOf(values),
      payment_method_types: csv(values.methods),
      currencies: csv(values.currencies),
      countries: csv(values.countries),
      fee_fixed: wholeOf(values['fee-fixed']),
      fee_bps: basisPointsOf(values['fee-percent']),
    }),
    human: (body) => [...showLines(body), `next: svc provider test ${body.id}`],
  },
  {
    words: ['provider', 'list'],
    summary: 'list a project\'s provider accounts (never their credentials)',
    synopsis: '--project PRJ_ID [--mode test|live]',
    options: ['project', 'mode'],
    positionals: [],
    check: (values) => required(values, 'project') ??
      (values.mode === undefined || MODES.includes(values.mode) ? undefined : `--mode must be test or live, got "${values.mode}"`),
    call: (api, values) => api.request('GET', `/projects/${id(values.project!)}/provider-accounts` +
      (values.mode ? `?mode=${id(values.mode)}` : '')),
    human: (body) => (body.data.length === 0 ? ['no provider accounts'] : body.data.map(accountLine)),
  },
  {
    words: ['provider', 'show'],
    summary: 'show a provider account and which credential fields are stored (never their values)',
    synopsis: 'PROVIDER_ACCOUNT_ID',
    options: [],
    positionals: ['PROVIDER_ACCOUNT_ID'],
    check: () => undefined,
    call: (api, _values, [accountId]) => api.request('GET', `/provider-accounts/${id(accountId)}`),
    human: showLines,
  },
  accountAction('disable', 'take a provider account out of routing (its history stays)'),
  accountAction('enable', 'route to a disabled provider account again'),
  {
    words: ['provider', 'test'],
    summary: 'make a harmless authenticated call with the stored credentials; exits 1 when they do not work',
    synopsis: 'PROVIDER_ACCOUNT_ID',
    options: [],
    positionals: ['PROVIDER_ACCOUNT_ID'],
    check: () => undefined,
    async call(api, _values, [accountId]) {
      const body = await api.request('POST', `/provider-accounts/${id(accountId)}/test`);
      if (body.ok) return body;
      // Not accepted is a failure of the command, so scripts can stop on it.
      const code = body.provider_error_code ? `${body.reason} (${body.provider_error_code})` : body.reason;
      throw new ApiError(200, { error: { type: 'provider_error', code, message: body.message } });
    },
    human: (body) => [`${body.provider_account_id}  ${body.provider} (${body.mode}): credentials accepted`],
  },
];
