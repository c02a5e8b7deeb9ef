// Adyen's Settlement details report as Adyen writes it (https://docs.adyen.com/reporting/settlement-detail-report,
// "Report structure"): the standard columns in their documented order, a header line, then one line
// per booking (Settled, Refunded, Fee, MerchantPayout, …), amounts as decimals in major units,
// Creation Date as YYYY-MM-DD HH:MM:SS in the company account's TimeZone. Tests write their
// fixtures with it, naming the pspReferences the Adyen stand-in gave their payments.

export const ADYEN_REPORT_COLUMNS = [
  'Company Account', 'Merchant Account', 'Psp Reference', 'Merchant Reference', 'Payment Method', 'Creation Date',
  'TimeZone', 'Type', 'Modification Reference', 'Gross Currency', 'Gross Debit (GC)', 'Gross Credit (GC)',
  'Exchange Rate', 'Net Currency', 'Net Debit (NC)', 'Net Credit (NC)', 'Commission (NC)', 'Markup (NC)',
  'Scheme Fees (NC)', 'Interchange (NC)', 'Payment Method Variant', 'Modification Merchant Reference', 'Batch Number',
  'Reserved4', 'Reserved5', 'Reserved6', 'Reserved7', 'Reserved8', 'Reserved9', 'Reserved10',
] as const;

export type ReportLine = Partial<Record<(typeof ADYEN_REPORT_COLUMNS)[number], string>>;

const quoted = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** The report's text: header and lines, CRLF as Adyen's downloads end them. */
export function adyenSettlementReport(lines: ReportLine[]): string {
  return [ADYEN_REPORT_COLUMNS.join(','), ...lines.map((l) => ADYEN_REPORT_COLUMNS.map((c) => quoted(l[c] ?? '')).join(','))]
    .join('\r\n') + '\r\n';
}

/** A Settled line: gross credit, Adyen's costs, net credit = gross − costs. */
export function settledLine(base: ReportLine, p: { psp: string; reference: string; capturePsp: string; gross: string; commission: string; markup: string; scheme: string; interchange: string; net: string }): ReportLine {
  return {
    ...base, 'Psp Reference': p.psp, 'Merchant Reference': p.reference, 'Payment Method': 'visa', Type: 'Settled',
    'Modification Reference': p.capturePsp, 'Gross Currency': 'EUR', 'Gross Credit (GC)': p.gross, 'Exchange Rate': '1',
    'Net Currency': 'EUR', 'Net Credit (NC)': p.net, 'Commission (NC)': p.commission, 'Markup (NC)': p.markup,
    'Scheme Fees (NC)': p.scheme, 'Interchange (NC)': p.interchange, 'Payment Method Variant': 'visaclassic',
  };
}
