import { del, id, required, type Command, type Values } from './command.js';

// `svc sandbox behaviour set|show|clear`: how a project's demo providers behave in test mode, per
// provider and segment (docs/routing.md, "The sandbox"). The API checks every value and names it.

const ACTIONS = ['set', 'show', 'clear'];
const SEGMENT = ['provider', 'method', 'currency', 'country'];
// CLI option, API field, and whether it is a whole number (else a rate).
const SETTINGS: [string, string, boolean][] = [
  ['approval-rate', 'approval_rate', false],
  ['technical-error-rate', 'technical_error_rate', false],
  ['latency-ms', 'latency_ms', true],
  ['outage-minutes', 'outage_minutes', true],
  ['late-success-rate', 'late_success_rate', false],
];

const numberOf = (value: string): number | undefined =>
  (/^\s*-?(\d+(\.\d*)?|\.\d+)\s*$/.test(value) ? Number(value) : undefined);

function behaviourProblem(values: Values, [action]: string[]): string | undefined {
  if (!ACTIONS.includes(action!)) return `ACTION must be set, show or clear, got "${action}"`;
  const missing = required(values, 'project');
  if (missing) return missing;
  if (action !== 'set') {
    const setting = SETTINGS.find(([option]) => values[option] !== undefined);
    return setting ? `--${setting[0]} is for set only` : undefined;
  }
  const segment = required(values, 'provider', 'method', 'currency');
  if (segment) return `${segment} (the segment to set)`;
  for (const [option, , whole] of SETTINGS) {
    const v = values[option];
    if (v === undefined) continue;
    const n = numberOf(v);
    if (n === undefined || (whole && !Number.isInteger(n))) return `--${option} must be ${whole ? 'a whole number' : 'a number'}, got "${v}"`;
  }
  return SETTINGS.some(([option]) => values[option] !== undefined)
    ? undefined
    : `set needs at least one of ${SETTINGS.map(([o]) => `--${o}`).join(', ')}`;
}

function segmentQuery(values: Values): string {
  const fields: [string, string][] = [['provider', 'provider'], ['method', 'payment_method'], ['currency', 'currency'], ['country', 'country']];
  return fields.filter(([option]) => values[option] !== undefined).map(([option, field]) => `&${field}=${id(values[option]!)}`).join('');
}

function behaviourLine(b: any): string {
  const outage = b.outage_until ? `, down until ${b.outage_until}` : '';
  return `${b.provider}  ${b.payment_method} ${b.currency} ${b.country}: approves ${(b.approval_rate * 100).toFixed(1)} %, `
    + `${(b.technical_error_rate * 100).toFixed(1)} % technical errors, `
    + `${(b.late_success_rate * 100).toFixed(1)} % late successes, +${b.latency_ms} ms${outage}`;
}

export const SANDBOX_COMMANDS: Command[] = [
  {
    words: ['sandbox', 'behaviour'],
    summary: 'how a project\'s demo providers behave in test mode, per segment (a payment\'s test_scenario still wins). '
      + 'set: one provider\'s segment (--provider demo_alpha|demo_beta|demo_gamma, --method, --currency, --country or * '
      + 'for any), changing only the settings given: --approval-rate 0..1 of answered attempts (the rest soft-decline), '
      + '--technical-error-rate 0..1, --latency-ms added (0..10000), --outage-minutes N: unavailable from now for N '
      + 'minutes (0 ends it), --late-success-rate 0..1 of the attempts not failing technically: never received, failed '
      + 'over, then reported charged and returned (as test_scenario late_success). show: every segment set. clear: the segments matching the options given (all without)',
    synopsis: 'set|show|clear --project PRJ_ID [--provider P --method M --currency C [--country CC]] '
      + '[--approval-rate R] [--technical-error-rate R] [--latency-ms MS] [--outage-minutes N]',
    options: ['project', ...SEGMENT, ...SETTINGS.map(([option]) => option)],
    positionals: ['ACTION'],
    check: behaviourProblem,
    call: (api, values, [action]) => {
      const path = `/projects/${id(values.project!)}/demo-behaviour`;
      if (action === 'show') return api.request('GET', `${path}?mode=test`);
      if (action === 'clear') return del(api, `${path}?mode=test${segmentQuery(values)}`);
      return api.request('PUT', path, {
        mode: 'test', provider: values.provider, payment_method: values.method, currency: values.currency,
        country: values.country,
        ...Object.fromEntries(SETTINGS.filter(([option]) => values[option] !== undefined)
          .map(([option, field]) => [field, numberOf(values[option]!)])),
      });
    },
    human: (body) => {
      if (body.object === 'demo_behaviour') return [behaviourLine(body)];
      return body.data.length === 0 ? ['no demo behaviour set: the demo providers approve (or play test_scenario)'] : body.data.map(behaviourLine);
    },
  },
];
