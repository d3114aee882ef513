/**
 * `rocelab compare REF_DIR RUN_DIR`: a run's trace CSVs (`rocelab run --trace DIR`) against a
 * reference directory of one or more runs. This file reads the directories and prints; the
 * parsing, the statistics and the verdicts are `@rocelab/results`. Exit 0 when every row
 * passes, 1 when one fails, 2 for bad input.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError } from 'commander';
import {
  compareTraces,
  comparisonJson,
  defaultTolerances,
  formatComparison,
  parseTolerances,
  parseTraceDir,
  ResultsError,
  splitRuns,
  TRACE_FILE_NAMES,
  type TraceText,
  type Tolerances,
  type Window,
} from '@rocelab/results';
import { InputFileError, MAX_TRACE_FILE_BYTES, parseDuration, readInputFile, UnitError } from '@rocelab/topology';

/** The command's flags as commander hands them over. */
export interface CompareFlags {
  /** Default: 10 % for every group. */
  tolerance?: Tolerances;
  /** Default: the second half of the run's rates.csv span. */
  window?: Window;
  json?: boolean;
  /** List every passing row even when there are many. */
  all?: boolean;
}

/** Bad input that is not a `ResultsError`: a directory or a file that is not there. */
class CompareInputError extends Error {}

const FILES = TRACE_FILE_NAMES.join(', ');

/** Commander parser of `--tolerance fct=10%,pauses=25%`. */
export function toleranceOption(text: string): Tolerances {
  try {
    return parseTolerances(text);
  } catch (err) {
    if (err instanceof ResultsError) throw new InvalidArgumentError(`expected ${err.expected}, got ${err.got}`);
    throw err;
  }
}

/** Commander parser of `--window 1ms-5ms`: half-open, relative to the run's start. */
export function windowOption(text: string): Window {
  const expected = 'A-B, two durations with a unit (ns, us, ms, s) and A < B, e.g. 1ms-5ms';
  const parts = text.split('-');
  let ps: number[] = [];
  try {
    if (parts.length === 2) ps = parts.map((p) => parseDuration(p.trim()));
  } catch (err) {
    if (!(err instanceof UnitError)) throw err;
  }
  if (ps.length !== 2 || !(ps[0]! < ps[1]!)) throw new InvalidArgumentError(`expected ${expected}, got ${JSON.stringify(text)}`);
  return { startUs: ps[0]! / 1e6, endUs: ps[1]! / 1e6, endInclusive: false };
}

/** The trace files of a directory; a file that is not there is left out. */
function readTraceDir(dir: string, label: 'REF_DIR' | 'RUN_DIR'): TraceText[] {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (err) {
    throw new CompareInputError(`${label} ${dir}: expected a directory of trace files (${FILES}), got ${describe(err)}`);
  }
  if (!isDir) throw new CompareInputError(`${label} ${dir}: expected a directory of trace files (${FILES}), got a file`);
  const out: TraceText[] = [];
  for (const name of TRACE_FILE_NAMES) {
    const path = join(dir, name);
    try {
      out.push({ name, path, text: readInputFile(path, 'trace file', MAX_TRACE_FILE_BYTES) });
    } catch (err) {
      if (!(err instanceof InputFileError)) throw err;
      if (err.actual !== 'ENOENT') throw new CompareInputError(`${path}: expected ${err.expected}, got ${err.actual}`);
    }
  }
  return out;
}

const describe = (err: unknown): string => {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'nothing there (ENOENT)' : code ?? String(err);
};

export function compareCommand(refDir: string, runDir: string, o: CompareFlags): number {
  try {
    const refFiles = readTraceDir(refDir, 'REF_DIR');
    const runFiles = readTraceDir(runDir, 'RUN_DIR');
    if (refFiles.length === 0) throw new CompareInputError(`REF_DIR ${refDir}: expected at least one of ${FILES}, got none`);
    for (const f of refFiles) {
      if (!runFiles.some((r) => r.name === f.name)) throw new CompareInputError(`${join(runDir, f.name)}: expected a trace file, as the reference has ${f.path}, got nothing there`);
    }
    const reference = parseTraceDir(refFiles);
    if (reference.runs.length === 0) throw new CompareInputError(`REF_DIR ${refDir}: expected at least one run, got files with a run column and no rows`);
    const run = parseTraceDir(runFiles);
    if (run.runs.length > 1) {
      throw new CompareInputError(`RUN_DIR ${runDir}: expected one run (files without a run column, or one value in it), got ${run.runs.length} runs (${run.runs.join(', ')})`);
    }
    // One run (or none, with a run column and no rows): its rows are the directory's.
    const comparison = compareTraces(run.tables, splitRuns(reference), {
      tolerances: o.tolerance ?? defaultTolerances(),
      window: o.window ?? null,
    });
    process.stdout.write(o.json === true ? `${comparisonJson(comparison)}\n` : formatComparison(comparison, { all: o.all === true }));
    return comparison.pass ? 0 : 1;
  } catch (err) {
    if (!(err instanceof ResultsError || err instanceof CompareInputError)) throw err;
    process.stderr.write(`rocelab compare: ${err.message}\n`);
    return 2;
  }
}
