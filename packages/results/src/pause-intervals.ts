/**
 * Paused intervals of each transmitter priority, from the PAUSE and RESUME frames that reached
 * it (pfc.csv). The rule is the link model's (docs/architecture/link-model.md): a pause holds
 * its priority from its arrival for `pause_us`; a pause arriving while paused reloads the timer
 * (a refresh: the same interval goes on, it is not a new one); a resume, or a pause of zero
 * quanta, ends it at once. A pause arriving exactly when the previous one would expire is a
 * refresh, because PFC arrivals are processed before transmitter events at the same instant
 * (event class 3 before class 5). An interval still open at the end of the trace keeps the end
 * its last pause gave it: the trace does not say when the run stopped.
 */

export interface PfcEvent {
  timeUs: number;
  node: string;
  port: string;
  priority: number;
  event: 'pause' | 'resume';
  pauseUs: number;
}

export interface PauseInterval {
  node: string;
  port: string;
  priority: number;
  startUs: number;
  endUs: number;
  /** PAUSE frames that started or refreshed it. */
  pauses: number;
}

/** Every paused interval, ordered by start, then node, port and priority. */
export function pauseIntervals(events: readonly PfcEvent[]): PauseInterval[] {
  const byPriority = new Map<string, PfcEvent[]>();
  for (const e of events) {
    const key = `${e.node}:${e.port}:${e.priority}`;
    const list = byPriority.get(key);
    if (list === undefined) byPriority.set(key, [e]);
    else list.push(e);
  }
  const out: PauseInterval[] = [];
  for (const list of byPriority.values()) {
    let open: PauseInterval | null = null;
    // Stable: events of one instant keep their file order.
    for (const e of [...list].sort((a, b) => a.timeUs - b.timeUs)) {
      if (open !== null && e.timeUs > open.endUs) {
        out.push(open);
        open = null;
      }
      if (e.event === 'resume' || e.pauseUs === 0) {
        if (open !== null) out.push({ ...open, endUs: e.timeUs });
        open = null;
      } else if (open !== null) {
        open.endUs = e.timeUs + e.pauseUs;
        open.pauses++;
      } else {
        open = { node: e.node, port: e.port, priority: e.priority, startUs: e.timeUs, endUs: e.timeUs + e.pauseUs, pauses: 1 };
      }
    }
    if (open !== null) out.push(open);
  }
  return out.sort((a, b) => a.startUs - b.startUs || cmp(a.node, b.node) || cmp(a.port, b.port) || a.priority - b.priority);
}

/** How many paused intervals, and their mean length in µs (null without any). */
export function pauseSummary(intervals: readonly PauseInterval[]): { count: number; meanUs: number | null } {
  const total = intervals.reduce((sum, i) => sum + (i.endUs - i.startUs), 0);
  return { count: intervals.length, meanUs: intervals.length === 0 ? null : total / intervals.length };
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
