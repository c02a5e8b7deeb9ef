import { api, ApiError } from '../api/client';
import { PAYMENT_METHOD_TYPES } from '../api/contract';
import type { RoutingRule } from '../api/types';
import { errorFor, Field, unplacedError } from '../components/field';
import { ErrorMessage } from '../components/messages';
import { useSubmit } from '../components/use-submit';
import { label } from '../format';
import { strategyFrom, StrategyFields, strategyParams } from './strategy-fields';

// A routing rule as a form, never raw JSON: a new rule's name, and for new and existing rules alike
// the conditions (currencies, countries, payment methods, amount range), the priority, the
// providers in order, the strategy and an A/B variant. The server checks everything and its error
// is shown beside the field it names.

export const rulePath = (rule: RoutingRule) => `/routing-rules/${encodeURIComponent(rule.id)}`;

const FIELDS = [
  'name', 'priority', 'currencies', 'countries', 'payment_method_types', 'min_amount', 'max_amount', 'providers', 'variant.share',
  ...strategyParams('strategy'), ...strategyParams('variant.strategy'),
];
const NEW_ID = 'new-rule';

const listOf = (text: string | undefined) => (text ?? '').split(/[\s,]+/).filter(Boolean);
const refused = (param: string, message: string) => new ApiError(422, 'validation_error', message, param);

function whole(text: string | undefined, param: string): number | null {
  if (!text) return null;
  if (!/^\d+$/.test(text)) throw refused(param, `${param} must be a whole number`);
  return Number(text);
}

/** The form's variant: none when the share is blank, else {share, strategy}. */
function variantFrom(v: Record<string, string>, current: RoutingRule['variant']) {
  if (!v['variant.share']) return null;
  const share = Number(v['variant.share']) / 100;
  if (!Number.isFinite(share)) throw refused('variant.share', 'variant.share must be a percentage');
  return { share, strategy: strategyFrom(v, 'variant.strategy', current?.strategy ?? null) ?? { type: 'priority' } };
}

export function RuleForm(props: { rule?: RoutingRule; onSaved: (said: string) => void }) {
  const { rule } = props;
  const id = (field: string) => `${rule?.id ?? NEW_ID}-${field}`;
  const { busy, error, onSubmit } = useSubmit(async (v, form) => {
    const fields = {
      priority: whole(v.priority, 'priority') ?? undefined,
      currencies: listOf(v.currencies).map((c) => c.toUpperCase()),
      countries: listOf(v.countries).map((c) => c.toUpperCase()),
      payment_method_types: new FormData(form).getAll('payment_method_types'),
      min_amount: whole(v.min_amount, 'min_amount'),
      max_amount: whole(v.max_amount, 'max_amount'),
      providers: listOf(v.providers),
      strategy: strategyFrom(v, 'strategy', rule?.strategy ?? null),
      variant: variantFrom(v, rule?.variant ?? null),
    };
    if (!rule) {
      const created = await api.post<RoutingRule>('/routing-rules', { name: v.name, ...fields });
      form.reset();
      props.onSaved(`${created.name} created.`);
      return;
    }
    // Only what changed is sent: a new strategy, variant or condition starts a new experiment period.
    const body = Object.fromEntries(Object.entries(fields).filter(([k, value]) =>
      JSON.stringify(value) !== JSON.stringify(rule[k as keyof typeof fields])));
    if (Object.keys(body).length === 0) {
      props.onSaved(`${rule.name}: nothing changed.`);
      return;
    }
    await api.patch(rulePath(rule), body);
    const restarts = Object.keys(body).some((k) => k !== 'priority' && k !== 'providers') ? ', a new experiment period begins' : '';
    props.onSaved(`${rule.name} saved: ${Object.keys(body).map(label).join(' and ')} changed${restarts}.`);
  });
  const at = (param: string) => errorFor(error, param);
  const what = rule?.name ?? 'the new rule';

  return (
    <form onSubmit={onSubmit} aria-label={rule ? `Change ${rule.name}` : 'New routing rule'}>
      {!rule && (
        <Field id={id('name')} label="Name" hint="letters, digits, _ . -" error={at('name')}>
          <input id={id('name')} name="name" required maxLength={64} size={20} />
        </Field>
      )}
      <fieldset>
        <legend>Payments {what} matches (blank: any)</legend>
        <div class="inline-form">
          <Field id={id('currencies')} label={`Currencies of ${what}`} hint="e.g. EUR, GBP" error={at('currencies')}>
            <input id={id('currencies')} name="currencies" size={12} defaultValue={rule?.currencies.join(', ') ?? ''} />
          </Field>
          <Field id={id('countries')} label={`Countries of ${what}`} hint="e.g. DE, FR" error={at('countries')}>
            <input id={id('countries')} name="countries" size={12} defaultValue={rule?.countries.join(', ') ?? ''} />
          </Field>
          <Field id={id('min')} label={`Minimum amount of ${what}`} hint="minor units: 1000 is €10.00" error={at('min_amount')}>
            <input id={id('min')} name="min_amount" inputMode="numeric" size={9} defaultValue={rule?.min_amount?.toString() ?? ''} />
          </Field>
          <Field id={id('max')} label={`Maximum amount of ${what}`} hint="minor units" error={at('max_amount')}>
            <input id={id('max')} name="max_amount" inputMode="numeric" size={9} defaultValue={rule?.max_amount?.toString() ?? ''} />
          </Field>
        </div>
        <div class="checks" role="group" aria-label={`Payment methods of ${what}`}>
          {PAYMENT_METHOD_TYPES.map((m) => (
            <label key={m} class="check">
              <input type="checkbox" name="payment_method_types" value={m} defaultChecked={rule?.payment_method_types.includes(m)} /> {label(m)}
            </label>
          ))}
        </div>
        {at('payment_method_types') && <p class="error" role="alert">{at('payment_method_types')}</p>}
      </fieldset>
      <div class="inline-form">
        <Field id={id('priority')} label={`Priority of ${what}`} hint="lowest is tried first" error={at('priority')}>
          <input id={id('priority')} name="priority" inputMode="numeric" size={5} required defaultValue={rule ? String(rule.priority) : ''} />
        </Field>
        <Field id={id('providers')} label={`Providers of ${what}`} hint="provider codes or account ids, in order" error={at('providers')}>
          <input id={id('providers')} name="providers" size={34} required defaultValue={rule?.providers.join(', ') ?? ''} />
        </Field>
      </div>
      <StrategyFields id={id('strategy')} prefix="strategy" what={rule ? `${rule.name}:` : 'Rule'} current={rule?.strategy ?? null} error={error} />
      <fieldset>
        <legend>A/B variant (optional)</legend>
        <Field id={id('share')} label={`Variant share % of ${what}`} hint="1 to 50; blank: no experiment" error={at('variant.share')}>
          <input id={id('share')} name="variant.share" inputMode="decimal" size={5}
            defaultValue={rule?.variant ? String(Number((rule.variant.share * 100).toFixed(4))) : ''} />
        </Field>
        <StrategyFields id={id('variant')} prefix="variant.strategy" what={rule ? `${rule.name} variant:` : 'Variant'}
          current={rule?.variant?.strategy ?? null} error={error} />
      </fieldset>
      <button type="submit" disabled={busy}>{rule ? `Save ${rule.name}` : 'Create rule'}</button>
      <ErrorMessage error={unplacedError(error, FIELDS)} />
    </form>
  );
}
