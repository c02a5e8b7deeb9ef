import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { ArmReport, RoutingReport, RoutingRule } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorMessage, Loading, Notice } from '../components/messages';
import { TableWrap } from '../components/table-wrap';
import { useLoad } from '../components/use-load';
import { dateTime, label, money, percent } from '../format';
import { can, useSignedIn } from '../session';
import { RuleForm, rulePath as path } from './routing-rule-form';

// The project's routing rules in the current mode, in the order they are tried: what each matches,
// its providers, its strategy and A/B variant, and the experiment's report per arm (payments since
// the strategy or variant last changed, acceptance with its 95 % interval). Developers and owners
// create, change and delete rules here with a form (routing-rule-form.tsx); the server checks them
// and its error is shown beside the field it names.

const json = (value: unknown) => JSON.stringify(value);
const interval = (i: { low: number; high: number } | null) => (i ? `${percent(i.low)} to ${percent(i.high)}` : '—');
const points = (d: number) => `${d >= 0 ? '+' : '−'}${Math.abs(d * 100).toFixed(1)} points`;

/** An amount bound as money when the rule names one currency; else in minor units, said so. */
function amountText(rule: RoutingRule, amount: number | null, none: string): string {
  if (amount === null) return none;
  return rule.currencies.length === 1 ? money(amount, rule.currencies[0]!) : `${amount} minor units`;
}

function conditions(rule: RoutingRule): string {
  const parts = [
    rule.currencies.length > 0 && `currency ${rule.currencies.join(', ')}`,
    rule.countries.length > 0 && `country ${rule.countries.join(', ')}`,
    rule.payment_method_types.length > 0 && `method ${rule.payment_method_types.map(label).join(', ')}`,
    (rule.min_amount !== null || rule.max_amount !== null) && `amount ${amountText(rule, rule.min_amount ?? 0, '')} to ${amountText(rule, rule.max_amount, 'any')}`,
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
  const [creating, setCreating] = useState(false);
  const editable = can(session, 'develop');
  const saved = (said: string) => {
    setNotice(said);
    setCreating(false);
    reports.reload();
  };

  return (
    <>
      <h1>Routing</h1>
      <p>
        Rules decide which providers a {session.mode} payment goes to, lowest priority first; payments no rule matches go to
        the cheapest provider. A rule’s strategy orders its providers; a variant sends a share of its payments (the same
        payments every time) to another strategy, so the two can be compared.
      </p>
      {notice && <Notice>{notice}</Notice>}
      {editable && !creating && <button type="button" onClick={() => setCreating(true)}>New rule</button>}
      {creating && (
        <section class="panel" aria-labelledby="new-rule">
          <h2 id="new-rule">New {session.mode} routing rule</h2>
          <RuleForm onSaved={saved} />
          <button type="button" class="secondary" onClick={() => setCreating(false)}>Cancel</button>
        </section>
      )}
      <ErrorMessage error={reports.error} />
      {reports.loading && !reports.data && <Loading what="routing rules" />}
      {reports.data?.length === 0 && (
        <p class="muted">No {session.mode} routing rule yet: every payment goes to the cheapest provider that can take it.</p>
      )}
      {reports.data?.map((report) => (
        <RuleSection key={report.rule.id} report={report} editable={editable} onSaved={saved} />
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
      {props.editable && (
        <>
          <RuleForm key={json(rule)} rule={rule} onSaved={props.onSaved} />
          <DeleteRule rule={rule} onDeleted={props.onSaved} />
        </>
      )}
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

function DeleteRule(props: { rule: RoutingRule; onDeleted: (said: string) => void }) {
  const [open, setOpen] = useState(false);
  const { rule } = props;
  return (
    <>
      <button type="button" class="danger" onClick={() => setOpen(true)}>Delete {rule.name}</button>
      {open && (
        <ConfirmDialog title={`Delete ${rule.name}?`} confirmLabel={`Delete ${rule.name}`} danger onClose={() => setOpen(false)}
          onConfirm={async () => {
            await api.delete(path(rule));
            setOpen(false);
            props.onDeleted(`${rule.name} deleted.`);
          }}>
          <p>The payments it matches will go to the next rule that matches them, or to the cheapest provider.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
