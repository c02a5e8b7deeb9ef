import { id, modeProblem, type Command } from './command.js';
import type { ManagementClient } from './client.js';
import { pct, ruleLine } from './routing-rule-commands.js';

// `svc routing report`: acceptance per A/B arm of a project's rules since each rule's experiment
// began (GET /manage/v1/projects/:id/routing-rules/:rule/report), with 95 % intervals.

const points = (d: number) => `${d >= 0 ? '+' : ''}${(d * 100).toFixed(1)}`;
const range = (i: { low: number; high: number }, f: (n: number) => string) => `[${f(i.low)}, ${f(i.high)}]`;
const percent = (n: number) => `${(n * 100).toFixed(1)} %`;

const cost = (f: any) => (f.extra_attempts_per_payment === null ? '' : `  failover +${f.extra_attempts_per_payment.toFixed(2)} attempts/payment`
  + `${f.fee_bps === null ? '' : `, fees ${f.fee_bps.toFixed(0)} bps`}, ${f.latency_ms_per_payment.toFixed(0)} ms/payment`);

// First-attempt acceptance leads: failover brings final acceptance near 100 % in both arms.
function armLine(a: any): string {
  const head = `  ${a.arm.padEnd(7)} ${pct(a.share).padStart(6)}  ${a.strategy.type.padEnd(14)}  n=${a.payments}`;
  if (a.first_attempt_acceptance === null) return `${head}  no payments yet`;
  return `${head}  first attempt ${a.first_attempt_approved} ${percent(a.first_attempt_acceptance)} ${range(a.first_attempt_interval, percent)}` +
    `  approved ${a.approved} ${percent(a.acceptance)} ${range(a.interval, percent)}${cost(a.failover)}`;
}

const difference = (what: string, d: any) => `  variant − control, ${what}: ${points(d.estimate)} points ${range(d, points)}`;

export function reportLines(report: any): string[] {
  return [
    `${ruleLine(report.rule)}  (since ${report.since})`,
    ...report.arms.map(armLine),
    ...(report.first_attempt_difference ? [difference('first attempt', report.first_attempt_difference)] : []),
    ...(report.difference ? [difference('approved', report.difference)] : []),
  ];
}

async function reports(api: ManagementClient, project: string, mode: string, rule: string | undefined) {
  const base = `/projects/${id(project)}/routing-rules`;
  const one = (ruleId: string) => api.request('GET', `${base}/${id(ruleId)}/report?mode=${id(mode)}`);
  if (rule !== undefined) return one(rule);
  const { data } = await api.request('GET', `${base}?mode=${id(mode)}`);
  return { data: await Promise.all(data.map((r: any) => one(r.id))) };
}

export const ROUTING_REPORT_COMMANDS: Command[] = [
  {
    words: ['routing', 'report'],
    summary: 'first-attempt and final acceptance per A/B arm (95 % Wilson intervals) and failover\'s cost (extra attempts, fees, latency) of one rule or every ' +
      'rule of a project, since the rule\'s strategy or variant last changed',
    synopsis: '--project PRJ_ID --mode test|live [--rule RULE_ID]',
    options: ['project', 'mode', 'rule'],
    positionals: [],
    check: modeProblem,
    call: (api, values) => reports(api, values.project!, values.mode!, values.rule),
    human: (body) => ('data' in body
      ? (body.data.length === 0 ? ['no routing rules: the default rule routes every payment'] : body.data.flatMap(reportLines))
      : reportLines(body)),
  },
];
