/**
 * What is said of a native program's report (issue 25), the same everywhere it is said: how it
 * ended, whether that fails the run, how a message names it, and how much of its output a report
 * keeps. The report itself is `ProgramReport` (node-report.ts).
 */
import { PROGRAM_OUTPUT_MAX_BYTES, type ProgramReport } from './node-report.js';

/** The tail of a program's output as a report keeps it: at most PROGRAM_OUTPUT_MAX_BYTES of UTF-8, cut at a character boundary. */
export function outputTail(text: string, maxBytes = PROGRAM_OUTPUT_MAX_BYTES): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return text;
  let start = bytes.length - maxBytes;
  // A UTF-8 continuation byte is 10xxxxxx: start at the next character's first byte.
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return new TextDecoder().decode(bytes.subarray(start));
}

/**
 * A program that fails the run (`rocelab run` exits 3): one rocelab could not run, one a signal
 * killed, one that exited with a code other than 0. One still running when the run ended does
 * not (as an app that had not returned).
 */
export function programFailed(p: ProgramReport): boolean {
  return p.status === 'failed' || p.status === 'killed' || (p.status === 'exited' && p.exitCode !== 0);
}

/** How a program ended, in a few words: `exited 1`, `killed by SIGSEGV`, `failed: …`, `still running`. */
export function programEnding(p: ProgramReport): string {
  switch (p.status) {
    case 'exited':
      return `exited ${p.exitCode ?? '?'}`;
    case 'killed':
      return `killed by ${p.signal ?? 'a signal'}`;
    case 'failed':
      return `failed: ${p.error ?? 'no reason given'}`;
    case 'running':
      return 'still running';
  }
}

/** `program ib_write_bw on h1[0]`: how the messages name a program. */
export function programName(p: Pick<ProgramReport, 'node' | 'index' | 'argv'>): string {
  return `program ${p.argv[0]?.split('/').pop() ?? '?'} on ${p.node}[${p.index}]`;
}
