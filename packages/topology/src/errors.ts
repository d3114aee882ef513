/**
 * Errors in a topology file (STYLE §9: bad external input is a typed error with a stable code
 * and a message naming where and what was expected). Every problem found is reported, one per
 * line, so a user fixes a file in one pass instead of one error per run.
 */

/**
 * `yaml`: not parseable YAML; `schema`: wrong shape (type, unknown key, missing field, enum);
 * `wiring`: links and nodes do not form a valid pod; `reference`: a name that points nowhere;
 * `value`: a unit string or address that does not parse; `io`: the file cannot be read.
 */
export type ProblemCode = 'yaml' | 'schema' | 'wiring' | 'reference' | 'value' | 'io';

export interface Problem {
  code: ProblemCode;
  /** Where in the file: `links[3].b`, `nodes[2].ip`, or `<root>`. */
  path: string;
  /** What would have been accepted, as a phrase: `a rate like 40G, 100M or 2.5G`. */
  expected: string;
  /** What was found, as written (`"40Q"`), or a short description (`nothing`, `2 links`). */
  actual: string;
  /** 1-based position, known for YAML syntax errors. */
  line?: number;
  col?: number;
}

export const ROOT = '<root>';

/** `path` + `.key`, or `[index]` for a number; from the root just `key`. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path === ROOT ? '' : path}[${key}]`;
  const part = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key);
  return path === ROOT ? part : `${path}.${part}`;
}

/** A value as it appears in a message: strings quoted, structures as short JSON, absence as `nothing`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

export function formatProblem(file: string, p: Problem): string {
  if (p.code === 'yaml') return `${file}:${p.line ?? 1}:${p.col ?? 1}: ${p.actual} (expected ${p.expected})`;
  return `${file}: ${p.path}: expected ${p.expected}, got ${p.actual}`;
}

export class TopologyError extends Error {
  readonly code: ProblemCode;
  readonly file: string;
  readonly path: string;
  readonly expected: string;
  /** Every problem found, in file order within each phase; the fields above repeat the first. */
  readonly problems: readonly Problem[];

  constructor(file: string, problems: readonly Problem[]) {
    if (problems.length === 0) throw new Error('TopologyError needs at least one problem');
    super(problems.map((p) => formatProblem(file, p)).join('\n'));
    this.name = 'TopologyError';
    const first = problems[0]!;
    this.code = first.code;
    this.file = file;
    this.path = first.path;
    this.expected = first.expected;
    this.problems = problems;
  }
}

/** Collects problems across checks so one run reports all of them. */
export class Problems {
  readonly list: Problem[] = [];

  add(code: ProblemCode, path: string, expected: string, actual: string): void {
    this.list.push({ code, path, expected, actual });
  }

  /**
   * Runs a parser; on failure records a `value` problem at `path` (using the error's own
   * `expected` when it has one, e.g. a UnitError) and returns `fallback` so checking goes on.
   */
  parse<T>(path: string, fallback: T, parse: () => T): T {
    try {
      return parse();
    } catch (err) {
      const e = (typeof err === 'object' && err !== null ? err : { message: err }) as { expected?: unknown; actual?: unknown; message?: unknown };
      const expected = typeof e.expected === 'string' ? e.expected : 'a valid value';
      const actual = 'actual' in e ? describeValue(e.actual) : String(e.message ?? err);
      this.add('value', path, expected, actual);
      return fallback;
    }
  }
}
