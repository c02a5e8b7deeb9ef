import { id, limitProblem, pageLines, required, type Command, type Values } from './command.js';

// `svc dead-letter …` and `svc outbox republish`: events a producing part's outbox relay parked,
// and publishing again what a broker may have lost (docs/decisions/2026-11-23-event-durability.md, "Event durability").

const PARTS = ['payments', 'payouts', 'ledger'];

function partProblem(values: Values): string | undefined {
  return required(values, 'part') ??
    (PARTS.includes(values.part!) ? undefined : `--part must be one of ${PARTS.join(', ')}, got "${values.part}"`);
}

function deadLetterLine(d: any): string {
  const behind = d.held_back > 0 ? `  ${d.held_back} later event(s) of ${d.aggregate_id} wait behind it` : '';
  return `${d.event_id}  ${d.event_type}  ${d.aggregate_id}  ${d.payload_bytes} bytes  attempts ${d.attempts}  ` +
    `parked ${d.parked_at}  last error: ${d.last_error}${behind}`;
}

const query = (values: Values, extra: Record<string, string | undefined> = {}) => {
  const params = new URLSearchParams({ part: values.part! });
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) params.set(k, v);
  return params.toString();
};

export const OUTBOX_COMMANDS: Command[] = [
  {
    words: ['dead-letter', 'list'],
    summary: 'list the events a part\'s outbox parked (the bus refused them), oldest first; never their payloads',
    synopsis: '--part payments|payouts|ledger [--limit N] [--cursor C]',
    options: ['part', 'limit', 'cursor'],
    positionals: [],
    check: (values) => partProblem(values) ?? limitProblem(values),
    call: (api, values) =>
      api.request('GET', `/dead-letters?${query(values, { limit: values.limit?.trim(), cursor: values.cursor })}`),
    human: (body) => pageLines(body, deadLetterLine, 'no parked events'),
  },
  {
    words: ['dead-letter', 'republish'],
    summary: 'return a parked event to the relay and show the outcome (published, parked again, or pending)',
    synopsis: 'EVT_ID --part payments|payouts|ledger',
    options: ['part'],
    positionals: ['EVT_ID'],
    check: partProblem,
    call: (api, values, [eventId]) => api.request('POST', `/dead-letters/${id(eventId)}/republish?${query(values)}`),
    human: (body) => [`${body.dead_letter.event_id}  ${body.status}` +
      (body.status === 'parked' ? `  last error: ${body.dead_letter.last_error}` : '')],
  },
  {
    words: ['outbox', 'republish'],
    summary: 'publish again every event a part published since TIME (after a broker lost acknowledged events)',
    synopsis: '--part payments|payouts|ledger --since TIME',
    options: ['part', 'since'],
    positionals: [],
    check: (values) =>
      partProblem(values) ?? required(values, 'since') ??
      (Number.isNaN(Date.parse(values.since!)) ? `--since must be a time such as 2026-11-20T10:00:00Z, got "${values.since}"` : undefined),
    call: (api, values) => api.request('POST', `/outbox/republish?${query(values)}`, { since: values.since!.trim() }),
    human: (body) => [`${body.part}: ${body.events} event(s) published since ${body.since} go out again`],
  },
];
