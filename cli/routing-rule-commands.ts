import { csv, del, id, MODES, modeProblem, required, wholeOf, type Command, type Values } from './command.js';

// `svc routing-rule create|list|update|delete`: a project's named routing rules per mode.

/** A share as a person reads it: 0.1 is "10 %", 0.125 "12.5 %". */
export const pct = (share: number) => `${+(share * 100).toFixed(1)} %`;

function ruleProblem(values: Values): string | undefined {
  const missing = required(values, 'project', 'mode', 'name', 'priority', 'providers');
  if (missing) return missing;
  if (!MODES.includes(values.mode!)) return `--mode must be test or live, got "${values.mode}"`;
  for (const name of ['priority', 'min-amount', 'max-amount']) {
    if (values[name] !== undefined && wholeOf(values[name]) === undefined) {
      return `--${name} must be a whole number, got "${values[name]}"`;
    }
  }
  return jsonProblem(values, false) ?? (csv(values.providers)!.length === 0 ? '--providers must name at least one provider' : undefined);
}

const EXAMPLES: Record<string, string> = { strategy: '{"type":"success_rate"}', variant: '{"share":0.1,"strategy":{"type":"cheapest"}}' };

/** --strategy and --variant must be JSON objects (or, in an update, null to remove them); routing-risk checks their fields. */
function jsonProblem(values: Values, nullAllowed: boolean): string | undefined {
  for (const name of ['strategy', 'variant']) {
    const text = values[name];
    if (text === undefined || (nullAllowed && text.trim() === 'null') || objectOf(text) !== undefined) continue;
    return `--${name} must be a JSON object such as '${EXAMPLES[name]}'${nullAllowed ? ' or null' : ''}, got ${text}`;
  }
  return undefined;
}

/** A JSON object, null for "null", or undefined when the text is neither. */
function objectOf(text: string | undefined): Record<string, unknown> | null | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text);
    return parsed === null || (typeof parsed === 'object' && !Array.isArray(parsed)) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A condition list in an update: "any" empties it, so the rule matches any value. */
const conditionList = (value: string | undefined) => (value?.trim() === 'any' ? [] : csv(value));
/** An amount bound in an update: "none" removes it. */
const boundOf = (value: string | undefined) => (value?.trim() === 'none' ? null : wholeOf(value));
const UPDATABLE = ['strategy', 'variant', 'priority', 'providers', 'currencies', 'countries', 'methods', 'min-amount', 'max-amount'];

function updateProblem(values: Values): string | undefined {
  const problem = modeProblem(values) ?? jsonProblem(values, true);
  if (problem) return problem;
  if (values.priority !== undefined && wholeOf(values.priority) === undefined) {
    return `--priority must be a whole number, got "${values.priority}"`;
  }
  for (const name of ['min-amount', 'max-amount']) {
    if (values[name] !== undefined && boundOf(values[name]) === undefined) {
      return `--${name} must be a whole number or none, got "${values[name]}"`;
    }
  }
  if (values.providers !== undefined && csv(values.providers)!.length === 0) return '--providers must name at least one provider';
  return UPDATABLE.some((n) => values[n] !== undefined)
    ? undefined
    : `give at least one of ${UPDATABLE.map((n) => `--${n}`).join(', ')}`;
}

export function ruleLine(rule: any): string {
  const conditions = [
    rule.currencies.length > 0 && `currency ${rule.currencies.join('|')}`,
    rule.countries.length > 0 && `country ${rule.countries.join('|')}`,
    rule.payment_method_types.length > 0 && `method ${rule.payment_method_types.join('|')}`,
    (rule.min_amount !== null || rule.max_amount !== null) && `amount ${rule.min_amount ?? 0}..${rule.max_amount ?? '∞'}`,
  ].filter(Boolean);
  const when = conditions.length > 0 ? conditions.join(', ') : 'any payment';
  const by = (rule.strategy ? ` by ${rule.strategy.type}` : '') +
    (rule.variant ? `, variant ${pct(rule.variant.share)} by ${rule.variant.strategy.type}` : '');
  return `${rule.id}  ${rule.mode.padEnd(4)}  #${rule.priority}  ${rule.name}: ${when} -> ${rule.providers.join(', ')}${by}`;
}

export const ROUTING_RULE_COMMANDS: Command[] = [
  {
    words: ['routing-rule', 'create'],
    summary: 'add a routing rule, lowest priority tried first; MATCH: --currencies, --countries, ' +
      '--methods (comma lists), --min-amount, --max-amount (inclusive, minor units); --strategy JSON orders the ' +
      'providers (docs/routing.md; default: as listed); --variant JSON an A/B arm',
    synopsis: '--project PRJ_ID --mode test|live --name NAME --priority N --providers P,... [MATCH] [--strategy JSON] [--variant JSON]',
    options: ['project', 'mode', 'name', 'priority', 'providers', 'currencies', 'countries', 'methods', 'min-amount',
      'max-amount', 'strategy', 'variant'],
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
      strategy: objectOf(values.strategy),
      variant: objectOf(values.variant),
    }),
    human: (body) => [ruleLine(body)],
  },
  {
    words: ['routing-rule', 'update'],
    summary: 'change a rule\'s strategy, A/B variant (JSON {"share":0.01..0.5,"strategy":{...}}; null removes it), ' +
      'priority, providers or MATCH (--currencies, --countries, --methods: a comma list, or any; --min-amount, ' +
      '--max-amount: minor units, or none); a new strategy, variant or MATCH starts a new experiment period for `svc routing report`',
    synopsis: 'RULE_ID --project PRJ_ID --mode test|live [--strategy JSON|null] [--variant JSON|null] [--priority N] [--providers P,...] [MATCH]',
    options: ['project', 'mode', ...UPDATABLE],
    positionals: ['RULE_ID'],
    check: updateProblem,
    call: (api, values, [ruleId]) =>
      api.request('PATCH', `/projects/${id(values.project!)}/routing-rules/${id(ruleId!)}?mode=${id(values.mode!)}`, {
        strategy: objectOf(values.strategy),
        variant: objectOf(values.variant),
        priority: wholeOf(values.priority),
        providers: csv(values.providers),
        currencies: conditionList(values.currencies),
        countries: conditionList(values.countries),
        payment_method_types: conditionList(values.methods),
        min_amount: boundOf(values['min-amount']),
        max_amount: boundOf(values['max-amount']),
      }),
    human: (body) => [`updated ${ruleLine(body)}`],
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
