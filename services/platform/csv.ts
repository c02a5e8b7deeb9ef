// RFC 4180 CSV, read into rows of fields. No maintained CSV library is installed (decisions.md,
// "A small CSV reader"), and provider reports need only the RFC's rules: comma-separated fields,
// CRLF or LF line ends, fields in double quotes may hold commas, line breaks and "" for a quote.

export class CsvError extends Error {
  constructor(readonly line: number, message: string) {
    super(`line ${line}: ${message}`);
  }
}

/** Each record with the line it starts on (1-based), so a reader can name where a problem is. */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** Parses the whole text; a blank line between records is skipped, a stray quote is a CsvError. */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text; // a UTF-8 BOM from spreadsheet exports
  let line = 1;
  let i = 0;
  while (i < body.length) {
    const start = line;
    const fields: string[] = [];
    for (;;) {
      let field = '';
      if (body[i] === '"') {
        i++;
        for (;;) {
          if (i >= body.length) throw new CsvError(start, 'a quoted field is not closed');
          const c = body[i];
          if (c === '"' && body[i + 1] === '"') { field += '"'; i += 2; continue; }
          if (c === '"') { i++; break; }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        if (i < body.length && body[i] !== ',' && body[i] !== '\n' && body[i] !== '\r') {
          throw new CsvError(line, 'a quoted field is followed by more text before the next comma');
        }
      } else {
        while (i < body.length && body[i] !== ',' && body[i] !== '\n' && body[i] !== '\r') {
          if (body[i] === '"') throw new CsvError(line, 'a quote inside an unquoted field');
          field += body[i++];
        }
      }
      fields.push(field);
      if (body[i] === ',') { i++; continue; }
      break;
    }
    if (body[i] === '\r') i++;
    if (body[i] === '\n') i++;
    line++;
    if (!(fields.length === 1 && fields[0] === '')) records.push({ line: start, fields });
  }
  return records;
}
