/**
 * Reading a mechanism's settings from the topology file: every bad field becomes a problem
 * naming the field, what would be accepted and what was written, and reading goes on, so a
 * user sees every problem of a file at once. The topology loader adds the file and path.
 */

/** A bad value in one field; `field` is relative to the settings object (`ecn.kmax`). */
export interface FieldProblem {
  field: string;
  expected: string;
  actual: unknown;
}

/**
 * `value` as written, parsed by `parse` (which may throw an error carrying `expected`, as the
 * unit parsers do) and checked by `check` (null = fine, else the expectation). Undefined when
 * absent or bad — a bad one is recorded in `problems`.
 */
export function readField<T>(problems: FieldProblem[], field: string, value: unknown, parse: (v: never) => T, check?: (v: T) => string | null): T | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed = parse(value as never);
    const bad = check?.(parsed) ?? null;
    if (bad === null) return parsed;
    problems.push({ field, expected: bad, actual: value });
  } catch (err) {
    problems.push({ field, expected: (err as { expected?: string }).expected ?? String(err), actual: value });
  }
  return undefined;
}
