/**
 * What every workload kind's resolver shares: the problem it reports for a bad field, the
 * collector that gathers all of them, the schema phrases (the same words as topology's unit
 * errors, so a schema failure and a parse failure read alike) and the file access it borrows.
 */
import type { UnitParsers } from '@rocelab/sim';
import type { CdfPoint } from './size-cdf.js';

export type { UnitParsers };

/**
 * A bad value in one field of a workload item (the shared shape of @rocelab/sim). `field` is
 * relative to the item (`sizeBytes`, `start.uniform[1]`); the loader prefixes `workloads[2]`.
 */
export type { FieldProblem } from '@rocelab/sim';
import type { FieldProblem } from '@rocelab/sim';

/** Every bad field of one workload item (all of them, so a user fixes the item in one pass). */
export class WorkloadError extends Error {
  constructor(readonly problems: readonly FieldProblem[]) {
    super(problems.map((p) => `${p.field}: expected ${p.expected}, got ${JSON.stringify(p.actual) ?? String(p.actual)}`).join('\n'));
    this.name = 'WorkloadError';
  }
}

/** A field of a workload item that names a host (checked by the topology loader against its nodes). */
export interface HostRef {
  field: string;
  name: string;
}

/**
 * Files a resolver may need (a size CDF), read by the topology loader on its behalf: this
 * package is pure and reads nothing. `readCdf` resolves `path` against the topology file's
 * directory and throws an error carrying `expected` (with the CDF file and line) and `actual`.
 */
export interface WorkloadFiles {
  readCdf(path: string): CdfPoint[];
}

/** Phrases used both as schema descriptions and as resolver expectations. */
export const PHRASE = {
  duration: 'a duration like 1us, 500ns, 1.5us or 2ms',
  bytes: 'a size in bytes: a non-negative integer or a string like 4MB, 1.5KB or 1MiB',
  host: 'the name of a host',
  hosts: 'a list of distinct host names, or all',
} as const;

/** Collects field problems while resolving, so every bad field is reported. */
export class Fields {
  readonly problems: FieldProblem[] = [];

  /** Runs a parser; on failure records the problem under `field` and returns 0 to carry on. */
  parse(field: string, value: unknown, parse: () => number): number {
    return this.attempt(field, value, 0, parse);
  }

  /**
   * Runs `run`; on failure records the error's own `expected` (a UnitError's phrase) and, when
   * it has one, its `actual` (else `value`), and returns `fallback`.
   */
  attempt<T>(field: string, value: unknown, fallback: T, run: () => T): T {
    try {
      return run();
    } catch (err) {
      const e = (typeof err === 'object' && err !== null ? err : {}) as { expected?: unknown; actual?: unknown };
      this.problems.push({ field, expected: typeof e.expected === 'string' ? e.expected : String(err), actual: 'actual' in e ? e.actual : value });
      return fallback;
    }
  }

  add(field: string, expected: string, actual: unknown): void {
    this.problems.push({ field, expected, actual });
  }

  /** Throws the WorkloadError when any field was bad, else returns `value`. */
  done<T>(value: T): T {
    if (this.problems.length > 0) throw new WorkloadError(this.problems);
    return value;
  }
}
