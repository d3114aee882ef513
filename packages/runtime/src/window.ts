/**
 * The window of the conservative protocol for one placement of a pod's nodes (members of
 * `--workers`/`up`, or parts of `--threads`): one rule for both, so a pod placed alike gets the
 * same window however it runs.
 */
import { lookaheadPs } from '@rocelab/sim';
import type { PodSpec } from '@rocelab/topology';
import { wireModelFor } from './pod-context.js';

/** With no link between members any width is safe; 1 ms keeps the reports (hashes) regular. */
const UNCROSSED_WINDOW_PS = 1e9;

/**
 * The window, the smallest lookahead of a link whose ends `memberOf` (node name → member or
 * part) places apart, so nothing sent in a window is due before its end; and how many links cross.
 */
export function placementWindow(pod: PodSpec, memberOf: ReadonlyMap<string, string | number>): { windowPs: number; crossLinks: number } {
  const wire = wireModelFor(pod.profile);
  let windowPs = Infinity;
  let crossLinks = 0;
  for (const link of pod.links) {
    if (memberOf.get(link.a.node) === memberOf.get(link.b.node)) continue;
    crossLinks++;
    windowPs = Math.min(windowPs, lookaheadPs(link.aToB, wire), lookaheadPs(link.bToA, wire));
  }
  return { windowPs: Number.isFinite(windowPs) ? windowPs : UNCROSSED_WINDOW_PS, crossLinks };
}
