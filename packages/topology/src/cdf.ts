/**
 * Size CDF files, named by `poisson` workloads (`sizes: {cdf: path}`), in the format of the
 * HPCC ns-3 traffic files (traffic_gen/WebSearch_distribution.txt, FbHdp_distribution.txt), so
 * those files load unchanged:
 *
 *     # WebSearch, a few points       '#' starts a comment, to the end of the line
 *     0        0                      size in bytes, cumulative probability P(size ≤ this)
 *     10000    15
 *     30000000 100
 *
 * - One `size cumulative_probability` pair per line, separated by spaces or tabs; blank lines
 *   are skipped. Sizes are non-negative decimal numbers; both columns never decrease.
 * - The scale is read from the last line: it must be exactly 1 (probabilities 0..1) or exactly
 *   100 (percent, as HPCC's files); every probability is divided by it.
 *
 * A relative path is relative to the topology file's directory (to the working directory for
 * inline text). The sampling (piecewise-linear inverse transform) lives in
 * packages/workload/src/size-cdf.ts.
 */
import { dirname, isAbsolute, join } from 'node:path';
import type { CdfPoint, WorkloadFiles } from '@rocelab/workload';
import { InputFileError, readInputFile } from './input-file.js';

/** A problem in a CDF file; `line` is 1-based, 0 for the whole file; `actual` is what was found, as written. */
export class CdfError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`${line > 0 ? `${file}:${line}` : file}: expected ${expected}, got ${JSON.stringify(actual)}`);
    this.name = 'CdfError';
  }
}

const NUMBER = /^\d+(?:\.\d+)?$/;

/** CDF text → points with probabilities 0..1. `file` names it in errors. Throws CdfError. */
export function parseCdf(text: string, file: string): CdfPoint[] {
  const rows: Array<{ line: number; size: number; p: number; text: string }> = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const body = raw.replace(/#.*$/, '').trim();
    if (body === '') return;
    const line = i + 1;
    const cols = body.split(/\s+/);
    if (cols.length !== 2 || !NUMBER.test(cols[0]!) || !NUMBER.test(cols[1]!)) {
      throw new CdfError(file, line, 'a line "size cumulative_probability" of two non-negative numbers', body);
    }
    const size = Number(cols[0]);
    const p = Number(cols[1]);
    const prev = rows[rows.length - 1];
    if (prev && size < prev.size) throw new CdfError(file, line, `a size not below the previous line's ${prev.size}`, cols[0]!);
    if (prev && p < prev.p) throw new CdfError(file, line, `a cumulative probability not below the previous line's ${prev.p}`, cols[1]!);
    rows.push({ line, size, p, text: body });
  });
  const last = rows[rows.length - 1];
  if (!last) throw new CdfError(file, 0, 'at least one "size cumulative_probability" line', 'none');
  if (last.p !== 1 && last.p !== 100) throw new CdfError(file, last.line, 'a last cumulative probability of exactly 1 (or 100 in a percent file)', String(last.p));
  return rows.map((r) => ({ sizeBytes: r.size, probability: r.p / last.p }));
}

/** Reads and parses a CDF file; an unreadable, special or oversized file is a CdfError at line 0. */
export function readCdfFile(path: string): CdfPoint[] {
  let text: string;
  try {
    text = readInputFile(path, 'CDF file');
  } catch (err) {
    if (!(err instanceof InputFileError)) throw err;
    throw new CdfError(path, 0, err.expected, err.actual);
  }
  return parseCdf(text, path);
}

/** Where a CDF path from `topologyFile` points: relative paths start at the topology file's directory. */
export function cdfPath(topologyFile: string, path: string): string {
  return isAbsolute(path) ? path : join(topologyFile === '<inline>' ? '.' : dirname(topologyFile), path);
}

/**
 * The file access workload resolvers get while loading `topologyFile`. A CdfError becomes a
 * field problem: the expectation names the CDF file and line, the actual value is what was there.
 */
export function cdfFilesFor(topologyFile: string): WorkloadFiles {
  return {
    readCdf(path: string): CdfPoint[] {
      try {
        return readCdfFile(cdfPath(topologyFile, path));
      } catch (err) {
        if (!(err instanceof CdfError)) throw err;
        const where = err.line > 0 ? `${err.file}:${err.line}` : err.file;
        throw Object.assign(new Error(err.message), { expected: `a CDF file of "size cumulative_probability" lines (${where}: expected ${err.expected})`, actual: err.actual });
      }
    },
  };
}
