/**
 * An expectation's outcome as the report prints it, and numbers rounded for it: shared by every
 * kind (expectations.ts, program-result.ts).
 */
import type { Expectation } from './drill-file.js';
import type { ExpectationOutcome } from './report-model.js';

/** A number to 1 decimal from 100 up, 3 from 1, else 4: what a reader compares at a glance. */
export function round(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const digits = Math.abs(x) >= 100 ? 1 : Math.abs(x) >= 1 ? 3 : 4;
  return String(Number(x.toFixed(digits)));
}

export function outcome(e: Expectation, v: string | null, what: string, pass: boolean, measured: string, expected: string, margin: string, value: number | null): ExpectationOutcome {
  return { id: e.id, kind: e.kind, variant: v, description: e.description ?? what, pass, measured, expected, margin, value, ...(e.why === null ? {} : { why: e.why }) };
}
