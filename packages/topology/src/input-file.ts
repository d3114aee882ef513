/**
 * Every file a user hands rocelab is read through here: topology and drill files, size CDFs, app
 * modules (checked before esbuild reads them), fault logs, trace directories. `readFileSync` reads
 * whatever a path names to its end, so `topology: /dev/zero` once grew the CLI to 7.6 GB of RSS
 * and a FIFO would block it for ever. Here a file is opened without blocking, must be a regular
 * file, and is read only up to a documented size (docs/errors.md, "Files rocelab reads"): past
 * that it is refused, naming the file and the limit, before it is parsed.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** Topology, drill, CDF and app module files, and fault logs: a 1,024-host Clos with pingmesh is some 0.1 MiB of YAML. */
export const MAX_INPUT_FILE_BYTES = 16 * 1024 * 1024;
/** Trace CSVs (`rocelab compare`, a drill's variants): a long run's queue.csv is big, but a string holds at most some 512 MiB. */
export const MAX_TRACE_FILE_BYTES = 256 * 1024 * 1024;

/** A file that cannot be used: what was expected of it, and what was there; `reason` says which check refused it. */
export class InputFileError extends Error {
  constructor(
    readonly path: string,
    readonly reason: 'unreadable' | 'special' | 'size',
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`${path}: expected ${expected}, got ${actual}`);
    this.name = 'InputFileError';
  }
}

const sizeText = (bytes: number): string => (bytes >= 1024 * 1024 ? `${Number((bytes / 1024 / 1024).toFixed(1))} MiB` : `${bytes} bytes`);
const a = (what: string): string => `${/^[aeiou]/i.test(what) ? 'an' : 'a'} ${what}`;

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/**
 * Opens `path` for reading without blocking (a FIFO with no writer would otherwise hang the
 * open), and checks it is a regular file of at most `maxBytes` by its size. `what` names it in
 * errors: `topology file`, `CDF file`.
 */
function openChecked(path: string, what: string, maxBytes: number): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new InputFileError(path, 'unreadable', `a readable ${what}`, e.code ?? e.message);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new InputFileError(path, 'special', `a regular file as the ${what}`, kindOf(stat));
    if (stat.size > maxBytes) throw new InputFileError(path, 'size', `${a(what)} of at most ${sizeText(maxBytes)} (rocelab's limit)`, sizeText(stat.size));
    return { fd, size: stat.size };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** Checks `path` as `readInputFile` would, without reading it (for files another tool reads: app modules, which esbuild bundles). */
export function checkInputFile(path: string, what: string, maxBytes = MAX_INPUT_FILE_BYTES): void {
  closeSync(openChecked(path, what, maxBytes).fd);
}

/**
 * The text of `path` (UTF-8). Reads at most `maxBytes` + 1 bytes whatever the size said: a
 * file that grows while read, or a /proc file that says 0, is refused past the limit too.
 */
export function readInputFile(path: string, what: string, maxBytes = MAX_INPUT_FILE_BYTES): string {
  const { fd, size } = openChecked(path, what, maxBytes);
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(Math.max(size - total, 64 * 1024), maxBytes + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
      total += n;
      if (total > maxBytes) throw new InputFileError(path, 'size', `${a(what)} of at most ${sizeText(maxBytes)} (rocelab's limit)`, 'more than that (it grew while read)');
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } catch (err) {
    if (err instanceof InputFileError) throw err;
    const e = err as NodeJS.ErrnoException;
    throw new InputFileError(path, 'unreadable', `a readable ${what}`, e.code ?? e.message);
  } finally {
    closeSync(fd);
  }
}
