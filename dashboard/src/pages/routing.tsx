import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { ArmReport, RoutingReport, RoutingRule } from '../api/types';
import { Field } from '../components/field';
import { ErrorMessage, Loading, Notice } from '../components/messages';
import { TableWrap } from '../components/table-wrap';
import { useLoad } from '../components/use-load';
import { useSubmit } from '../components/use-submit';
import { dateTime, label, percent } from '../format';
import { can, useSignedIn } from '../session';

// The project's routing rules in the current mode, in the order they are tried: what each matches,
// its providers, its strategy and A/B variant, and the experiment's report per arm (payments since
// the strategy or variant last changed, acceptance with its 95 % interval). Developers and owners
// change a rule's strategy and variant here; the server checks them and says what is wrong in words.
// Rules are created with the management API or `svc routing-rule create` (docs/routing.md).

const path = (rule: RoutingRule) => `/routing-rules/${encodeURIComponent(rule.id)}`;
const json = (value: unknown) => (value === null ? '' : JSON.stringify(value, null, 2));
const interval = (i: { low: number; high: number } | null) => (i ? `${percent(i.low)} to ${percent(i.high)}` : '—');
const points = (d: number) => `${d >= 0 ? '+' : '−'}${Math.abs(d * 100).toFixed(1)} points`;

function conditions(rule: RoutingRule): string {
  const parts = [
    rule.currencies.length > 0 && `currency ${rule.currencies.join(', ')}`,
    rule.countries.length > 0 && `country ${rule.countries.join(', ')}`,
    rule.payment_method_types.length > 0 && `method ${rule.payment_method_types.map(label).join(', ')}`,
    (rule.min_amount !== null || rule.max_amount !== null) && `amount ${rule.min_amount ?? 0} to ${rule.max_amount ?? 'any'}`,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join('; ') : 'every payment';
}

export function RoutingPage() {
  const session = useSignedIn();
  const reports = useLoad(async () => {
    const { data } = await api.get<{ data: RoutingRule[] }>('/routing-rules');
    return Promise.all(data.map((rule) => api.get<RoutingReport>(`${path(rule)}/report`)));
  }, [session.mode]);
  const [notice, setNotice] = useState<string>();

  return (
    <>
      <h1>Routing</h1>
      <p>
        Rules decide which providers a {session.mode} payment goes to, lowest priority first; payments no rule matches go to
        the cheapest provider. A rule’s strategy orders its providers; a variant sends a share of its payments (the same
        payments every time) to another strategy, so the two can be compared.
      </p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={reports.error} />
      {reports.loading && !reports.data && <Loading what="routing rules" />}
      {reports.data?.length === 0 && (
        <p class="muted">No {session.mode} routing rule yet: every payment goes to the cheapest provider that can take it.</p>
      )}
      {reports.data?.map((report) => (
        <RuleSection key={report.rule.id} report={report} editable={can(session, 'develop')}
          onSaved={(said) => { setNotice(said); reports.reload(); }} />
      ))}
    </>
  );
}

function RuleSection(props: { report: RoutingReport; editable: boolean; onSaved: (said: string) => void }) {
  const { rule, arms, difference, first_attempt_difference: firstDifference } = props.report;
  return (
    <section class="routing-rule" aria-labelledby={`rule-${rule.id}`}>
      <h2 id={`rule-${rule.id}`}>{rule.name}</h2>
      <p>
        Priority {rule.priority}; {conditions(rule)} → {rule.providers.join(', ')}. Strategy{' '}
        <strong>{label(rule.strategy?.type ?? 'priority')}</strong>
        {rule.variant && <>; variant <strong>{label(rule.variant.strategy.type)}</strong> for {percent(rule.variant.share)} of payments</>}.
      </p>
      <p class="muted">Experiment since {dateTime(props.report.since)}.</p>
      <TableWrap label={`Arms of ${rule.name}`}>
        <table>
          <thead>
            <tr>
              <th scope="col">Arm</th><th scope="col">Share</th><th scope="col">Strategy</th><th scope="col">Payments (n)</th>
              <th scope="col">First attempt</th><th scope="col">First-attempt acceptance</th><th scope="col">95 % interval</th>
              <th scope="col">Approved</th><th scope="col">Acceptance</th><th scope="col">95 % interval</th>
              <th scope="col">Extra attempts per payment</th><th scope="col">Fees</th><th scope="col">Latency per payment</th>
            </tr>
          </thead>
          <tbody>{arms.map((a) => <ArmRow key={a.arm} arm={a} />)}</tbody>
        </table>
      </TableWrap>
      {firstDifference && (
        <p>
          <strong>First attempt, variant minus control: {points(firstDifference.estimate)}</strong> (95 % interval{' '}
          {points(firstDifference.low)} to {points(firstDifference.high)}).
        </p>
      )}
      {difference && (
        <p>
          Variant minus control: {points(difference.estimate)} (95 % interval {points(difference.low)} to {points(difference.high)}).
        </p>
      )}
      {/* Keyed by what it edits: a saved change shows the server's values, typing is never overwritten. */}
      {props.editable && <StrategyForm key={json([rule.strategy, rule.variant])} rule={rule} onSaved={props.onSaved} />}
    </section>
  );
}

function ArmRow({ arm }: { arm: ArmReport }) {
  return (
    <tr>
      <th scope="row">{arm.arm}</th>
      <td>{percent(arm.share)}</td>
      <td>{label(arm.strategy.type)}</td>
      <td>{arm.payments}</td>
      <td>{arm.first_attempt_approved}</td>
      <td>{percent(arm.first_attempt_acceptance)}</td>
      <td>{interval(arm.first_attempt_interval)}</td>
      <td>{arm.approved}</td>
      <td>{percent(arm.acceptance)}</td>
      <td>{interval(arm.interval)}</td>
      <td>{arm.failover.extra_attempts_per_payment === null ? '—' : arm.failover.extra_attempts_per_payment.toFixed(2)}</td>
      <td>{arm.failover.fee_bps === null ? '—' : `${arm.failover.fee_bps.toFixed(0)} bps`}</td>
      <td>{arm.failover.latency_ms_per_payment === null ? '—' : `${arm.failover.latency_ms_per_payment.toFixed(0)} ms`}</td>
    </tr>
  );
}

/** The textarea's JSON: null when empty (none), or an error naming the field when it does not parse. */
function parsed(text: string, what: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${what} is not valid JSON: ${(e as Error).message}`);
  }
}

function StrategyForm(props: { rule: RoutingRule; onSaved: (said: string) => void }) {
  const { rule } = props;
  const id = (field: string) => `${rule.id}-${field}`;
  const { busy, error, onSubmit } = useSubmit(async (v) => {
    const next = { strategy: parsed(v.strategy ?? '', 'Strategy'), variant: parsed(v.variant ?? '', 'Variant') };
    // Only what changed is sent: a new strategy or variant starts a new experiment period.
    const body = Object.fromEntries(Object.entries(next).filter(([k, value]) =>
      JSON.stringify(value) !== JSON.stringify(rule[k as 'strategy' | 'variant'])));
    if (Object.keys(body).length === 0) {
      props.onSaved(`${rule.name}: nothing changed.`);
      return;
    }
    await api.patch(path(rule), body);
    props.onSaved(`${rule.name} saved: ${Object.keys(body).join(' and ')} changed, a new experiment period begins.`);
  });
  return (
    <form onSubmit={onSubmit} aria-label={`Change ${rule.name}`}>
      <Field id={id('strategy')} label={`Strategy of ${rule.name}`}
        hint='JSON, for example {"type": "success_rate", "settings": {"minSample": 50}}; empty: the providers in their listed order.'>
        <textarea id={id('strategy')} name="strategy" rows={3} class="mono" aria-describedby={`${id('strategy')}-hint`}
          defaultValue={json(rule.strategy)} />
      </Field>
      <Field id={id('variant')} label={`Variant of ${rule.name}`}
        hint='JSON, for example {"share": 0.1, "strategy": {"type": "cheapest"}}; share from 0.01 to 0.5; empty: no experiment.'>
        <textarea id={id('variant')} name="variant" rows={7} class="mono" aria-describedby={`${id('variant')}-hint`}
          defaultValue={json(rule.variant)} />
      </Field>
      <button type="submit" disabled={busy}>Save {rule.name}</button>
      <ErrorMessage error={error} />
    </form>
  );
}
