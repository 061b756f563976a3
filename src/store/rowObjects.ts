/**
 * Rows of `node:sqlite` made objects of one shape per column list. Asked for objects, the driver
 * makes each row a dictionary-mode object with a null prototype: slow to make and slow to read
 * on every property access (2.3× the time to read 200 rows of 7 columns, then use them). Asked
 * for arrays, a literal per column list makes ordinary objects that share one hidden class.
 */
export type RowObject = (values: readonly unknown[]) => Record<string, unknown>;

const makers = new Map<string, RowObject>();
/** Column lists are the statements' own (a few hundred at most); the bound only guards a leak. */
const maxMakers = 1024;

/** The function making a row of these columns an object (as the driver would, the last of two equal names winning). */
export function rowObject(columns: readonly string[]): RowObject {
  const key = JSON.stringify(columns);
  let make = makers.get(key);
  if (make === undefined) {
    // Names are quoted as JSON strings: a column name is data in the literal, never code. A
    // column named __proto__ is computed, or the literal would set the prototype instead.
    const fields = columns
      .map((name, i) => `${name === '__proto__' ? '["__proto__"]' : JSON.stringify(name)}: values[${i}]`)
      .join(', ');
    make = new Function('values', `return { ${fields} };`) as RowObject;
    if (makers.size >= maxMakers) makers.clear();
    makers.set(key, make);
  }
  return make;
}

/** Rows given as arrays, as `make` (a `rowObject` of their columns) makes them objects. */
export function rowObjects(make: RowObject, rows: readonly unknown[][]): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) objects[r] = make(rows[r]!);
  return objects;
}
