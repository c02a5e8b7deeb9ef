import { ApiError } from '../api/client';
import { LEARNING_STRATEGY_TYPES, ROUTING_STRATEGY_TYPES } from '../api/contract';
import type { RoutingStrategy } from '../api/types';
import { errorFor, Field } from '../components/field';
import { label } from '../format';

// A routing strategy as form fields (docs/routing.md, "Strategies"): its type, a volume split's
// weights, and the two learning settings people change most; settings the form does not show are
// kept as the rule has them. `prefix` is the strategy's place in the API's body (`strategy`,
// `variant.strategy`), so the server's error for `strategy.weights` lands beside the weights.

const LEARNING: readonly string[] = LEARNING_STRATEGY_TYPES;

/** The params these fields show errors for, for the form's own message to leave out. */
export const strategyParams = (prefix: string) =>
  [`${prefix}.type`, `${prefix}.weights`, `${prefix}.settings.minSample`, `${prefix}.settings.explorationShare`];

const settingsOf = (s: RoutingStrategy | null) => (s?.settings ?? {}) as Record<string, number>;
const weightsText = (s: RoutingStrategy | null) =>
  Object.entries((s?.weights ?? {}) as Record<string, number>).map(([p, w]) => `${p}=${w}`).join(', ');

export function StrategyFields(props: { id: string; prefix: string; what: string; current: RoutingStrategy | null; error: unknown }) {
  const { id, prefix, current, error } = props;
  const settings = settingsOf(current);
  const exploration = settings.explorationShare;
  return (
    <div class="inline-form">
      <Field id={`${id}-type`} label={`${props.what} strategy`} error={errorFor(error, `${prefix}.type`)}>
        {/* Chosen by its option (Preact sets no select's defaultValue): the form stays uncontrolled. */}
        <select id={`${id}-type`} name={`${prefix}.type`}>
          {ROUTING_STRATEGY_TYPES.map((t) => <option key={t} value={t} selected={t === (current?.type ?? 'priority')}>{label(t)}</option>)}
        </select>
      </Field>
      <Field id={`${id}-weights`} label={`${props.what} weights (volume split)`} hint="provider=percent, …; summing to 100"
        error={errorFor(error, `${prefix}.weights`)}>
        <input id={`${id}-weights`} name={`${prefix}.weights`} size={22} defaultValue={weightsText(current)} />
      </Field>
      <Field id={`${id}-min-sample`} label={`${props.what} minimum sample (learning)`} hint="answered attempts before a rate is trusted; blank: 30"
        error={errorFor(error, `${prefix}.settings.minSample`)}>
        <input id={`${id}-min-sample`} name={`${prefix}.minSample`} inputMode="numeric" size={6} defaultValue={settings.minSample?.toString() ?? ''} />
      </Field>
      <Field id={`${id}-exploration`} label={`${props.what} exploration % (learning)`} hint="blank: 4"
        error={errorFor(error, `${prefix}.settings.explorationShare`)}>
        <input id={`${id}-exploration`} name={`${prefix}.explorationShare`} inputMode="decimal" size={6}
          defaultValue={exploration === undefined ? '' : String(Number((exploration * 100).toFixed(4)))} />
      </Field>
    </div>
  );
}

const refused = (param: string, message: string) => new ApiError(422, 'validation_error', message, param);

function number(text: string, param: string): number | undefined {
  if (text === '') return undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) throw refused(param, `${param} must be a number`);
  return n;
}

/** "demo_alpha=70, demo_beta=30" as {demo_alpha: 70, demo_beta: 30}; the server checks the sum and names. */
function weightsFrom(text: string, param: string): Record<string, number> {
  const weights: Record<string, number> = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^([^=\s]+)\s*[=:\s]\s*(\S+)$/.exec(part);
    if (!m) throw refused(param, `${param}: write each as provider=percent, e.g. demo_alpha=70`);
    weights[m[1]!] = number(m[2]!, param)!;
  }
  return weights;
}

/**
 * The strategy the fields say, as the API takes it: null for the rule's listed order (priority)
 * unless it was written out; learning settings the form does not show are kept.
 */
export function strategyFrom(v: Record<string, string>, prefix: string, current: RoutingStrategy | null): RoutingStrategy | null {
  const type = v[`${prefix}.type`] ?? 'priority';
  if (type === 'priority') return current?.type === 'priority' ? current : null;
  if (type === 'volume_split') return { type, weights: weightsFrom(v[`${prefix}.weights`] ?? '', `${prefix}.weights`) };
  if (!LEARNING.includes(type)) return { type };
  const settings: Record<string, number> = { ...settingsOf(current) };
  const minSample = number(v[`${prefix}.minSample`] ?? '', `${prefix}.settings.minSample`);
  const exploration = number(v[`${prefix}.explorationShare`] ?? '', `${prefix}.settings.explorationShare`);
  if (minSample === undefined) delete settings.minSample; else settings.minSample = minSample;
  if (exploration === undefined) delete settings.explorationShare; else settings.explorationShare = exploration / 100;
  return Object.keys(settings).length > 0 ? { type, settings } : { type };
}
