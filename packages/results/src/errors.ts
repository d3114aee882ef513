/**
 * Bad input to the results code (STYLE §9): a trace file that does not parse, a reference that
 * does not fit the run, a tolerance or window that does not parse. The message names where
 * (`ref/rates.csv:14: throughput_gbps (column 11)`), what was expected, and what was found.
 */

export type ResultsErrorCode =
  /** A trace file's header: no header, a duplicate or missing column. */
  | 'header'
  /** A data row: wrong field count, a value of the wrong type or range, a duplicate flow. */
  | 'field'
  /** The runs of a directory: a `run` column in some files only, several runs where one is expected. */
  | 'runs'
  /** A `--tolerance` specification. */
  | 'tolerance';

export class ResultsError extends Error {
  override readonly name = 'ResultsError';

  constructor(
    readonly code: ResultsErrorCode,
    /** Where, e.g. `ref/rates.csv:14: throughput_gbps (column 11)` or `--tolerance`. */
    readonly where: string,
    /** What was expected there. */
    readonly expected: string,
    /** What was found, already formatted for the message. */
    readonly got: string,
  ) {
    super(`${where}: expected ${expected}, got ${got}`);
  }
}
