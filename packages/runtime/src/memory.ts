/**
 * What a process's memory costs per node it hosts, for the run's result and the bench.
 *
 * RSS counts every resident page, including the ≈ 40 MiB of Node's own code and data that every
 * Node process maps (a bare `node -e 0` is 40 MiB RSS here): 26 members show 26 times what the
 * machine holds once. PSS (proportional set size, Linux `/proc/self/smaps_rollup`) counts a
 * shared page divided by the processes sharing it: what one more member costs a machine
 * running many. Reading it walks every mapping, so it is read once, for the final report.
 */
import { readFileSync } from 'node:fs';

export interface NodeMemory {
  rssBytes: number;
  /** 0 when not asked for, or where the OS does not tell. */
  pssBytes: number;
}

/** The process's memory divided over the `nodes` it hosts; PSS only when `proportional`. */
export function nodeMemory(nodes: number, proportional: boolean): NodeMemory {
  const share = Math.max(1, nodes);
  return { rssBytes: process.memoryUsage().rss / share, pssBytes: proportional ? processPss() / share : 0 };
}

function processPss(): number {
  let rollup: string;
  try {
    rollup = readFileSync('/proc/self/smaps_rollup', 'utf8');
  } catch {
    return 0; // not Linux, or a kernel before 4.14
  }
  return pssOfRollup(rollup);
}

/** The `Pss:` line of a smaps_rollup text, in bytes (0 when it has none). */
export function pssOfRollup(rollup: string): number {
  const kib = /^Pss:\s+(\d+) kB$/m.exec(rollup)?.[1];
  return kib === undefined ? 0 : Number(kib) * 1024;
}
