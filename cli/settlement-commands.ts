import { readFile } from 'node:fs/promises';
import { CliError } from './client.js';
import { id, required, type Command } from './command.js';

// `svc settlement import|sync`: a provider account's settlements into the ledger, as the management
// API's settlement-reports and settlement-sync do (docs/connectors.md, "Settlements").

function settlementLine(s: any): string {
  const state = s.changed ? 'new' : 'unchanged';
  return `${s.id}  ${s.status.padEnd(7)}  ${s.settlement_reference}  ${s.currency} gross ${s.gross_amount} fee ${s.fee_amount} ` +
    `net ${s.net_amount}  ${s.transaction_count} transactions  (${state})`;
}

function importLines(body: any): string[] {
  return [
    `${body.provider_account_id}  ${body.provider} (${body.mode}): ${body.created} new, ${body.unchanged} unchanged`,
    ...body.data.map(settlementLine),
  ];
}

async function reportText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export const SETTLEMENT_COMMANDS: Command[] = [
  {
    words: ['settlement', 'import'],
    summary: 'import a provider\'s settlement report file (Adyen: the Settlement details report CSV); importing it again changes nothing',
    synopsis: '--provider-account PAC_ID FILE',
    options: ['provider-account'],
    positionals: ['FILE'],
    check: (values) => required(values, 'provider-account'),
    async call(api, values, [file]) {
      const text = await reportText(file);
      return api.upload(`/provider-accounts/${id(values['provider-account']!)}/settlement-reports`, text, 'text/csv; charset=utf-8');
    },
    human: importLines,
  },
  {
    words: ['settlement', 'sync'],
    summary: 'fetch a provider account\'s settlements from its API (Stripe: each payout with its balance transactions)',
    synopsis: '--provider-account PAC_ID [--since ISO_DATE_TIME]',
    options: ['provider-account', 'since'],
    positionals: [],
    check: (values) => required(values, 'provider-account') ??
      (values.since === undefined || !Number.isNaN(Date.parse(values.since))
        ? undefined : `--since must be an ISO 8601 date-time, got "${values.since}"`),
    call: (api, values) => api.request('POST', `/provider-accounts/${id(values['provider-account']!)}/settlement-sync`,
      values.since === undefined ? {} : { since: new Date(values.since).toISOString() }),
    human: importLines,
  },
];
