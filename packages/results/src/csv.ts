/**
 * The trace CSV dialect: one header line, comma-separated fields, no quoting, an empty field
 * for "no value". Every problem names the file, the line, the column and what was expected.
 */
import { ResultsError } from './errors.js';

export interface CsvTable {
  /** As given by the caller, used in messages, e.g. `ref/rates.csv`. */
  readonly file: string;
  readonly header: readonly string[];
  /** 1-based line number of the header. */
  readonly headerLine: number;
  readonly rows: readonly CsvRow[];
}

export interface CsvRow {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly fields: readonly string[];
}

/** Splits `text` into a header and rows; blank lines are skipped, `\r\n` is accepted. */
export function parseCsv(file: string, text: string): CsvTable {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const first = lines.findIndex((l) => l !== '');
  if (first < 0) throw new ResultsError('header', file, 'a header line of column names', 'an empty file');
  const header = lines[first]!.split(',');
  header.forEach((name, i) => {
    const where = `${file}:${first + 1}: column ${i + 1}`;
    if (name === '') throw new ResultsError('header', where, 'a column name', 'an empty field');
    const again = header.indexOf(name, i + 1);
    if (again >= 0) throw new ResultsError('header', where, 'unique column names', `"${name}" again in column ${again + 1}`);
  });
  const rows: CsvRow[] = [];
  for (let i = first + 1; i < lines.length; i++) {
    if (lines[i] === '') continue;
    const fields = lines[i]!.split(',');
    if (fields.length !== header.length) {
      throw new ResultsError('field', `${file}:${i + 1}`, `${header.length} fields as in the header`, `${fields.length}`);
    }
    rows.push({ line: i + 1, fields });
  }
  return { file, header, headerLine: first + 1, rows };
}

/** Throws unless the header has every column of `columns`; extra columns are allowed (and ignored). */
export function requireColumns(table: CsvTable, columns: readonly string[]): void {
  const missing = columns.filter((c) => !table.header.includes(c));
  if (missing.length > 0) {
    throw new ResultsError('header', `${table.file}:${table.headerLine}`, `the columns ${columns.join(',')}`, `no ${missing.join(', ')}`);
  }
}

const NUMBER = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/** Typed access to one row's fields by column name, each failure naming file, line and column. */
export class FieldReader {
  private readonly columns: ReadonlyMap<string, number>;
  private row: CsvRow = { line: 0, fields: [] };

  constructor(private readonly table: CsvTable) {
    this.columns = new Map(table.header.map((name, i) => [name, i]));
  }

  /** Points the reader at `row`; returns it for chaining. */
  at(row: CsvRow): this {
    this.row = row;
    return this;
  }

  has(column: string): boolean {
    return this.columns.has(column);
  }

  /** A non-empty string. */
  text(column: string): string {
    const value = this.raw(column);
    if (value === '') this.fail(column, 'a value', 'an empty field');
    return value;
  }

  /** One of `values`. */
  oneOf<T extends string>(column: string, values: readonly T[]): T {
    const value = this.raw(column);
    if (!(values as readonly string[]).includes(value)) this.fail(column, `one of ${values.join(', ')}`, JSON.stringify(value));
    return value as T;
  }

  /** A finite decimal number ≥ `min`. */
  number(column: string, min = 0): number {
    const value = this.raw(column);
    const n = NUMBER.test(value) ? Number(value) : NaN;
    if (!Number.isFinite(n) || n < min) this.fail(column, min === -Infinity ? 'a number' : `a number ≥ ${min}`, value === '' ? 'an empty field' : JSON.stringify(value));
    return n;
  }

  /** A number ≥ `min`, or null for an empty field. */
  optionalNumber(column: string, min = 0): number | null {
    return this.raw(column) === '' ? null : this.number(column, min);
  }

  /** An integer in [min, max]. */
  integer(column: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const value = this.raw(column);
    const n = /^[-+]?\d+$/.test(value) ? Number(value) : NaN;
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `in ${min}..${max}`;
    if (!Number.isSafeInteger(n) || n < min || n > max) this.fail(column, `an integer ${range}`, value === '' ? 'an empty field' : JSON.stringify(value));
    return n;
  }

  /** Any string, empty included. */
  optionalText(column: string): string {
    return this.raw(column);
  }

  /** An integer in [min, max], or null for an empty field. */
  optionalInteger(column: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | null {
    return this.raw(column) === '' ? null : this.integer(column, min, max);
  }

  /** `0` or `1`. */
  flag(column: string): boolean {
    return this.oneOf(column, ['0', '1']) === '1';
  }

  /** Where a column of the current row is, for messages: `ref/rates.csv:14: qp (column 3)`. */
  where(column: string): string {
    return `${this.table.file}:${this.row.line}: ${column} (column ${this.index(column) + 1})`;
  }

  private raw(column: string): string {
    return this.row.fields[this.index(column)]!;
  }

  private index(column: string): number {
    const i = this.columns.get(column);
    if (i === undefined) throw new Error(`${this.table.file}: column ${column} read before requireColumns`);
    return i;
  }

  private fail(column: string, expected: string, got: string): never {
    throw new ResultsError('field', this.where(column), expected, got);
  }
}
