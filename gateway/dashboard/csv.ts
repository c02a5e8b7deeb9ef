// CSV as RFC 4180 writes it (comma separated, CRLF line ends, quotes doubled), safe to open in a
// spreadsheet: a cell starting with = + - @ (or a tab or carriage return, which some spreadsheets
// skip before reading a formula) is prefixed with an apostrophe, so a merchant's reference such as
// "=HYPERLINK(...)" is shown as text rather than run (OWASP's CSV injection advice).

export type CsvValue = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell: empty for null or undefined; numbers as they are, so a negative amount stays a number. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(values: CsvValue[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** A column of an export: its header and how a row's value is read. */
export interface CsvColumn<T> {
  header: string;
  value(row: T): CsvValue;
}

export function toCsv<T>(columns: CsvColumn<T>[], rows: T[]): string {
  return csvLine(columns.map((c) => c.header)) + rows.map((r) => csvLine(columns.map((c) => c.value(r)))).join('');
}
