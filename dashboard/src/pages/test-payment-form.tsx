import { useRef, useState } from 'preact/hooks';
import { api, ApiError, idempotencyKey } from '../api/client';
import type { Payment } from '../api/types';
import { errorFor, Field, unplacedError } from '../components/field';
import { Link } from '../components/link';
import { ErrorMessage } from '../components/messages';
import { StatusBadge } from '../components/status-badge';
import { useLoad } from '../components/use-load';
import { useSubmit } from '../components/use-submit';
import { money, toMinor } from '../format';

// A test payment from the dashboard, so the first payment needs no curl: amount, currency, the
// sandbox scenario the demo providers play, and the customer. It is the dashboard API's
// POST /payments (the /v1 handler for the session's scope, test mode only) with an Idempotency-Key:
// the same form sent again unchanged (a double click, a retry after a lost answer) makes one payment.

interface Scenario {
  name: string;
  description: string;
}

const FIELDS = ['amount', 'currency', 'test_scenario', 'customer.email', 'customer.name', 'description'] as const;

export function TestPaymentForm(props: { onCreated: (payment: Payment) => void }) {
  const scenarios = useLoad(() => api.get<{ data: Scenario[] }>('/test/scenarios'), []);
  const [made, setMade] = useState<Payment>();
  // The key of the last request and what it asked: reused only for the very same request.
  const last = useRef<{ key: string; body: string } | undefined>(undefined);
  const { busy, error, onSubmit, setError } = useSubmit(async (v) => {
    setMade(undefined);
    const currency = v.currency.toUpperCase();
    const amount = toMinor(v.amount, currency);
    if (amount === undefined) {
      throw new ApiError(422, 'validation_error', `Amount must be a number such as 12.50 in ${currency || 'the currency'}`, 'amount');
    }
    const customer = { ...(v.customer_email && { email: v.customer_email }), ...(v.customer_name && { name: v.customer_name }) };
    const body = {
      amount, currency, payment_method: 'card', test_scenario: v.test_scenario,
      ...(Object.keys(customer).length > 0 && { customer }),
      ...(v.description && { description: v.description }),
    };
    const text = JSON.stringify(body);
    if (last.current?.body !== text) last.current = { key: idempotencyKey(), body: text };
    const payment = await api.post<Payment>('/payments', body, { 'idempotency-key': last.current.key });
    last.current = undefined;
    setMade(payment);
    props.onCreated(payment);
  });
  const at = (...fields: string[]) => errorFor(error, ...fields);

  return (
    <form class="panel" aria-label="Test payment" onSubmit={onSubmit} onInput={() => error && setError(undefined)}>
      <h2>Test payment</h2>
      <p class="muted small">A card payment in test mode, played by the demo providers as the scenario says.</p>
      <div class="inline-form">
        <Field id="tp-amount" label="Amount" error={at('amount')}>
          <input id="tp-amount" name="amount" inputMode="decimal" required size={8} defaultValue="10.00" />
        </Field>
        <Field id="tp-currency" label="Currency" error={at('currency')}>
          <input id="tp-currency" name="currency" required maxLength={3} size={4} pattern="[A-Za-z]{3}" defaultValue="EUR" />
        </Field>
        <Field id="tp-scenario" label="Scenario" error={at('test_scenario')}>
          <select id="tp-scenario" name="test_scenario">
            {(scenarios.data?.data ?? [{ name: 'success', description: '' }]).map((s) => (
              <option key={s.name} value={s.name} title={s.description}>{s.name.replace(/_/g, ' ')}</option>
            ))}
          </select>
        </Field>
        <Field id="tp-customer-email" label="Customer email" error={at('customer.email')}>
          <input id="tp-customer-email" name="customer_email" type="email" size={18} />
        </Field>
        <Field id="tp-customer-name" label="Customer name" error={at('customer.name')}>
          <input id="tp-customer-name" name="customer_name" size={14} />
        </Field>
        <Field id="tp-description" label="Description" error={at('description')}>
          <input id="tp-description" name="description" maxLength={500} size={16} defaultValue="Test payment" />
        </Field>
        <button type="submit" disabled={busy}>Make test payment</button>
      </div>
      <ErrorMessage error={unplacedError(error, [...FIELDS])} />
      {made && (
        <p class="notice" role="status">
          <Link to={`/payments/${encodeURIComponent(made.id)}`}>{money(made.amount, made.currency)} test payment</Link>{' '}
          <StatusBadge status={made.status} /> <span class="mono small">{made.id}</span>
          {made.failure && <> · {made.failure.message}</>}
        </p>
      )}
    </form>
  );
}
