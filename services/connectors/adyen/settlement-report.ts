// Adyen's Settlement details report (https://docs.adyen.com/reporting/settlement-detail-report): the
// CSV Adyen makes whenever a payable batch closes, one line per booking. Read here into
// provider-neutral settlements, one per Batch Number (and net currency), for the ledger's one
// ingestion. Amounts are decimals in major units; costs (Commission, Markup, Scheme Fees,
// Interchange) are in the net currency. Chargebacks and their reversals settle the ledger's
// dispute movements. Pure: no call to Adyen.
import { parseCsv, CsvError, type CsvRecord } from '../../platform/csv.js';
import { parseMajorAmount } from '../../contract/money.js';
import type { ProviderSettlement, ProviderSettlementItem, SettlementReportRead } from '../types.js';

const COLUMNS = [
  'Merchant Account', 'Psp Reference', 'Merchant Reference', 'Creation Date', 'TimeZone', 'Type',
  'Modification Reference', 'Gross Currency', 'Gross Debit (GC)', 'Gross Credit (GC)', 'Net Currency',
  'Net Debit (NC)', 'Net Credit (NC)', 'Commission (NC)', 'Markup (NC)', 'Scheme Fees (NC)', 'Interchange (NC)',
  'Modification Merchant Reference', 'Batch Number',
] as const;
type Column = (typeof COLUMNS)[number] | 'Company Account';
const COSTS: Column[] = ['Commission (NC)', 'Markup (NC)', 'Scheme Fees (NC)', 'Interchange (NC)'];

/** Record types that are costs on the batch as a whole: a fee of the settlement (a credit lowers it). */
const BATCH_COSTS = new Set(['Fee', 'MiscCosts', 'InvoiceDeduction', 'DepositCorrection', 'PaymentCost']);
/** A refund, and a refund Adyen accepted and failed afterwards, paid back. */
const REFUND_TYPES = new Set(['Refunded', 'RefundedReversed']);
/** A dispute's money: the disputed amount withdrawn (again after a won defence), or reinstated. */
const DISPUTE_TYPES = new Set(['Chargeback', 'SecondChargeback', 'ChargebackReversed']);
/** Record types that move the batch's balance out (to the bank, or on to the next batch), not what it settles. */
const BALANCE_MOVES = new Set(['MerchantPayout', 'Balancetransfer']);

/** UTC offsets in hours of the time zone codes Adyen writes in TimeZone (the company account's setting). */
const ZONES: Record<string, number> = {
  UTC: 0, GMT: 0, WET: 0, WEST: 1, BST: 1, CET: 1, CEST: 2, EET: 2, EEST: 3, MSK: 3, GST: 4, IST: 5.5, SGT: 8, HKT: 8,
  AWST: 8, JST: 9, KST: 9, AEST: 10, AEDT: 11, NZST: 12, NZDT: 13, BRT: -3, EST: -5, EDT: -4, CST: -6, CDT: -5,
  MST: -7, MDT: -6, PST: -8, PDT: -7,
};

class Malformed extends Error {
  constructor(readonly line: number | null, readonly column: string | null, message: string) {
    super(message);
  }
}

type Row = { line: number; get(c: Column): string };

function rowsOf(records: CsvRecord[]): Row[] {
  const [header, ...rest] = records;
  if (!header) throw new Malformed(null, null, 'The report is empty');
  const names = header.fields.map((f) => f.trim());
  const missing = COLUMNS.filter((c) => !names.includes(c));
  if (missing.length > 0) {
    throw new Malformed(header.line, missing[0], `The header has no ${missing.map((c) => `"${c}"`).join(', ')} column; ` +
      'upload the Settlement details report as Adyen makes it');
  }
  return rest.map((r) => ({ line: r.line, get: (c: Column) => (r.fields[names.indexOf(c)] ?? '').trim() }));
}

function amountOf(row: Row, column: Column, currency: string): bigint {
  const text = row.get(column);
  if (text === '') return 0n;
  const value = parseMajorAmount(text, currency);
  if (value === undefined) {
    throw new Malformed(row.line, column, `"${text}" is not an amount in ${currency} (a decimal in major units, at most its minor unit)`);
  }
  return value;
}

function dateOf(row: Row): Date {
  const text = row.get('Creation Date');
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  if (!m) throw new Malformed(row.line, 'Creation Date', `"${text}" is not a date as YYYY-MM-DD HH:MM:SS`);
  const zone = row.get('TimeZone');
  const offset = ZONES[zone];
  if (offset === undefined) throw new Malformed(row.line, 'TimeZone', `"${zone}" is not a time zone code this reader knows`);
  const utc = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) - offset * 3_600_000;
  return new Date(utc);
}

function currencyOf(row: Row, column: 'Net Currency' | 'Gross Currency'): string {
  const c = row.get(column);
  if (!/^[A-Z]{3}$/.test(c)) throw new Malformed(row.line, column, `"${c}" is not an ISO 4217 currency code`);
  return c;
}

interface Batch { settlement: ProviderSettlement; dates: Date[]; payoutAt: Date | null }

/** Adds one line to its batch. */
function book(batch: Batch, row: Row, type: string, currency: string, at: Date): void {
  const net = amountOf(row, 'Net Credit (NC)', currency) - amountOf(row, 'Net Debit (NC)', currency);
  if (BALANCE_MOVES.has(type)) {
    if (type === 'MerchantPayout') batch.payoutAt = at;
    return;
  }
  batch.dates.push(at);
  if (BATCH_COSTS.has(type)) {
    const what = row.get('Modification Reference');
    batch.settlement.fees.push({ amount: -net, description: what ? `${type}: ${what}` : type });
    return;
  }
  if (type !== 'Settled' && !REFUND_TYPES.has(type) && !DISPUTE_TYPES.has(type)) {
    throw new Malformed(row.line, 'Type', `${type} records are not supported: the ledger cannot book them ` +
      '(docs/connectors.md, "Settlements")');
  }
  if (currencyOf(row, 'Gross Currency') !== currency) {
    throw new Malformed(row.line, 'Net Currency', 'Gross and net currency differ: settlements with currency conversion are not supported');
  }
  const gross = amountOf(row, 'Gross Credit (GC)', currency) - amountOf(row, 'Gross Debit (GC)', currency);
  const fee = COSTS.reduce((sum, c) => sum + amountOf(row, c, currency), 0n);
  if (gross - fee !== net) {
    throw new Malformed(row.line, net >= 0n ? 'Net Credit (NC)' : 'Net Debit (NC)',
      `The net ${net} (minor units) is not the gross ${gross} less the costs ${fee}`);
  }
  const psp = row.get('Psp Reference');
  if (type === 'Settled') {
    if (gross <= 0n) throw new Malformed(row.line, 'Gross Credit (GC)', 'A Settled record credits a positive amount');
    batch.settlement.items.push({ type: 'payment', attemptId: row.get('Merchant Reference') || undefined, providerReference: psp || undefined, amount: gross, fee });
  } else if (DISPUTE_TYPES.has(type)) {
    batch.settlement.items.push(disputeItem(row, type, gross, fee));
  } else {
    batch.settlement.items.push(refundItem(row, type, gross, fee));
  }
}

/**
 * A Chargeback (or, after a won defence, a SecondChargeback) line debits the disputed amount, its
 * costs being the chargeback's fees; a ChargebackReversed line credits it back. Each settles one of
 * the dispute's movements in the ledger, named by the chargeback's reference (Modification
 * Reference, the dispute's pspReference) and the disputed payment's (Psp Reference).
 */
function disputeItem(row: Row, type: string, gross: bigint, fee: bigint): ProviderSettlementItem {
  const reversed = type === 'ChargebackReversed';
  if (!reversed && gross >= 0n) throw new Malformed(row.line, 'Gross Debit (GC)', `A ${type} record debits a positive amount`);
  if (reversed && gross <= 0n) throw new Malformed(row.line, 'Gross Credit (GC)', 'A ChargebackReversed record credits a positive amount');
  const psp = row.get('Psp Reference');
  const ref = row.get('Modification Reference');
  if (!psp && !ref) throw new Malformed(row.line, 'Psp Reference', `A ${type} record names its payment by Psp Reference`);
  return {
    type: reversed ? 'dispute_reversal' : 'dispute', providerReference: ref || undefined, paymentReference: psp || undefined,
    amount: gross, fee,
  };
}

/**
 * A Refunded line debits the refund; a RefundedReversed line credits back a refund that failed after
 * Adyen accepted it, settling the ledger's reversal of that refund. Both name the refund by our
 * refund id (Modification Merchant Reference, the reference the connector sent) or its pspReference.
 */
function refundItem(row: Row, type: string, gross: bigint, fee: bigint): ProviderSettlementItem {
  const reversed = type === 'RefundedReversed';
  if (!reversed && gross >= 0n) throw new Malformed(row.line, 'Gross Debit (GC)', 'A Refunded record debits a positive amount');
  if (reversed && gross <= 0n) throw new Malformed(row.line, 'Gross Credit (GC)', 'A RefundedReversed record credits a positive amount');
  const ref = row.get('Modification Reference');
  if (!ref && !row.get('Modification Merchant Reference')) {
    throw new Malformed(row.line, 'Modification Reference', `A ${type} record names its refund by Modification Reference`);
  }
  return {
    type: reversed ? 'refund_reversal' : 'refund',
    refundId: row.get('Modification Merchant Reference') || undefined, providerReference: ref || undefined, amount: gross, fee,
  };
}

/** The report's batches; `merchantAccount` is the connected account's, which every line must name. */
export function readAdyenSettlementReport(text: string, merchantAccount: string): SettlementReportRead {
  try {
    const batches = new Map<string, Batch>();
    for (const row of rowsOf(parseCsv(text))) {
      if (row.get('Merchant Account') !== merchantAccount) {
        throw new Malformed(row.line, 'Merchant Account', `"${row.get('Merchant Account')}" is not this account's merchant account (${merchantAccount})`);
      }
      const number = row.get('Batch Number');
      if (!/^\d+$/.test(number)) throw new Malformed(row.line, 'Batch Number', `"${number}" is not a batch number`);
      const type = row.get('Type');
      if (!type) throw new Malformed(row.line, 'Type', 'The record has no type');
      const currency = currencyOf(row, 'Net Currency');
      const key = `${number}\u0000${currency}`;
      let batch = batches.get(key);
      if (!batch) {
        batch = {
          settlement: {
            reference: number, currency, status: 'settled', periodStart: new Date(0), periodEnd: new Date(0), settledAt: null,
            settlementEntity: row.get('Company Account') || null, items: [], fees: [],
          },
          dates: [], payoutAt: null,
        };
        batches.set(key, batch);
      }
      book(batch, row, type, currency, dateOf(row));
    }
    if (batches.size === 0) throw new Malformed(null, null, 'The report has no records under its header');
    return { ok: true, settlements: [...batches.values()].map((b) => finish(b, batches)) };
  } catch (err) {
    if (err instanceof Malformed) return { ok: false, line: err.line, column: err.column, message: err.message };
    if (err instanceof CsvError) return { ok: false, line: err.line, column: null, message: err.message };
    throw err;
  }
}

/** Times of the batch; a batch paid out in several currencies is one settlement per currency, `batch/CUR`. */
function finish(b: Batch, all: Map<string, Batch>): ProviderSettlement {
  const s = b.settlement;
  const times = b.dates.map((d) => d.getTime());
  const last = times.length > 0 ? Math.max(...times) : (b.payoutAt?.getTime() ?? 0);
  const shared = [...all.values()].filter((o) => o.settlement.reference === s.reference).length > 1;
  return {
    ...s,
    reference: shared ? `${s.reference}/${s.currency}` : s.reference,
    periodStart: new Date(times.length > 0 ? Math.min(...times) : last),
    periodEnd: new Date(last),
    settledAt: b.payoutAt ?? new Date(last),
  };
}
