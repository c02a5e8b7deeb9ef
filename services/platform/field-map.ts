// A table written from a record, declared once as column → record field. Two positional lists
// (the columns, then the values in the same order) had to be kept aligned by hand; here each
// column stands beside the field it takes, and the compiler checks that the field exists.

/** A record's field by name, or a function for a value that is derived (nested, encoded). */
export type FieldSource<R> = keyof R | ((record: R) => unknown);

/** Column name → where its value comes from, in the table's column order. */
export type FieldMap<R> = Readonly<Record<string, FieldSource<R>>>;

/** A field stored in a json/jsonb column: serialised, null and undefined left as they are. */
export function asJson<R>(key: keyof R): (record: R) => unknown {
  return (record) => {
    const value = record[key];
    return value === null || value === undefined ? value : JSON.stringify(value);
  };
}

export function columnsOf<R>(map: FieldMap<R>): string[] {
  return Object.keys(map);
}

/** The values of the given columns (by default all, in the map's order) taken from the record. */
export function valuesOf<R>(map: FieldMap<R>, record: R, columns: readonly string[] = columnsOf(map)): unknown[] {
  return columns.map((column) => {
    const source = map[column];
    if (source === undefined) throw new Error(`no field for column ${column}`);
    return typeof source === 'function' ? source(record) : record[source];
  });
}
