import { csv, del, id, MODES, modeProblem, required, wholeOf, type Command, type Values } from './command.js';

// `svc routing-rule create|list|delete`: a project's named routing rules per mode.

function ruleProblem(values: Values): string | undefined {
  const missing = required(values, 'project', 'mode', 'name', 'priority', 'providers');
  if (missing) return missing;
  if (!MODES.includes(values.mode!)) return `--mode must be test or live, got "${values.mode}"`;
  for (const name of ['priority', 'min-amount', 'max-amount']) {
    if (values[name] !== undefined && wholeOf(values[name]) === undefined) {
      return `--${name} must be a whole number, got "${values[name]}"`;
    }
  }
  if (values.strategy !== undefined && strategyOf(values.strategy) === undefined) {
    return `--strategy must be a JSON object such as '{"type":"success_rate"}', got ${values.strategy}`;
  }
  return csv(values.providers)!.length === 0 ? '--providers must name at least one provider' : undefined;
}

/** --strategy's JSON object, or undefined when it is not one (routing-risk checks its fields). */
function strategyOf(text: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}


function ruleLine(rule: any): string {
  const conditions = [
    rule.currencies.length > 0 && `currency ${rule.currencies.join('|')}`,
    rule.countries.length > 0 && `country ${rule.countries.join('|')}`,
    rule.payment_method_types.length > 0 && `method ${rule.payment_method_types.join('|')}`,
    (rule.min_amount !== null || rule.max_amount !== null) && `amount ${rule.min_amount ?? 0}..${rule.max_amount ?? '∞'}`,
  ].filter(Boolean);
  const when = conditions.length > 0 ? conditions.join(', ') : 'any payment';
  const by = rule.strategy ? ` by ${rule.strategy.type}` : '';
  return `${rule.id}  ${rule.mode.padEnd(4)}  #${rule.priority}  ${rule.name}: ${when} -> ${rule.providers.join(', ')}${by}`;
}

export const ROUTING_RULE_COMMANDS: Command[] = [
  {
    words: ['routing-rule', 'create'],
    summary: 'add a routing rule, lowest priority tried first; MATCH: --currencies, --countries, ' +
      '--methods (comma lists), --min-amount, --max-amount (inclusive, minor units); --strategy JSON orders the ' +
      'providers (docs/routing.md; default: as listed)',
    synopsis: '--project PRJ_ID --mode test|live --name NAME --priority N --providers P,... [MATCH] [--strategy JSON]',
    options: ['project', 'mode', 'name', 'priority', 'providers', 'currencies', 'countries', 'methods', 'min-amount',
      'max-amount', 'strategy'],
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
      strategy: values.strategy === undefined ? undefined : strategyOf(values.strategy),
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
