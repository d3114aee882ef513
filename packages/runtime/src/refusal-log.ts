/**
 * Refusals logged at a bounded rate (the pure part: no timers, the clock is passed in). 20,000
 * refused connections once wrote 20,000 log lines; now each kind of refusal (a close code, a
 * 401 of the fault API) gets at most one line per interval, carrying how many refusals it
 * stands for, per peer address and reason, since the previous line of that kind.
 *
 * The first refusal of a kind is reported at once; later ones wait until the interval since
 * the last line has passed, either at the next refusal or when `nextDeadlineMs()` is reached
 * (the shell calls `onTimer`), so a burst followed by silence is still reported in full.
 */

/** One (peer, reason) pair and how often it was refused since the last line. */
export interface RefusalCount {
  peer: string;
  reason: string;
  count: number;
}

/** What one log line says. */
export interface RefusalLine {
  kind: string;
  /** Every refusal since the previous line of this kind: the sum of `counts` and `otherCount`. */
  refusals: number;
  /** Most frequent first (then by peer and reason), at most `maxEntries`. */
  counts: RefusalCount[];
  /** Refusals of pairs beyond `maxEntries` distinct ones (an attacker can vary the reason). */
  otherCount: number;
  /** Wall time covered: from the first refusal counted here to this line. */
  spanMs: number;
}

export interface RefusalLogConfig {
  /** At most one line per kind per this many ms. */
  intervalMs: number;
  /** Distinct (peer, reason) pairs remembered per kind between lines; the rest count as other. */
  maxEntries?: number;
  /** Longest reason kept (reasons quote what a peer claimed). */
  maxReasonChars?: number;
}

const DEFAULT_MAX_ENTRIES = 20;
const DEFAULT_MAX_REASON_CHARS = 160;

interface KindState {
  lastLineMs: number;
  firstPendingMs: number;
  pending: Map<string, RefusalCount>;
  pendingTotal: number;
  otherCount: number;
}

export class RefusalLog {
  private readonly kinds = new Map<string, KindState>();
  private readonly maxEntries: number;
  private readonly maxReasonChars: number;

  constructor(private readonly config: RefusalLogConfig) {
    if (!(config.intervalMs > 0)) throw new RangeError(`RefusalLog: intervalMs: expected a positive number of ms, got ${config.intervalMs}`);
    this.maxEntries = config.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.maxReasonChars = config.maxReasonChars ?? DEFAULT_MAX_REASON_CHARS;
  }

  /** Count one refusal; returns the line to log now, or null when it waits for a later one. */
  note(kind: string, peer: string, reason: string, nowMs: number): RefusalLine | null {
    let s = this.kinds.get(kind);
    if (s === undefined) {
      s = { lastLineMs: -Infinity, firstPendingMs: nowMs, pending: new Map(), pendingTotal: 0, otherCount: 0 };
      this.kinds.set(kind, s);
    }
    if (s.pendingTotal === 0) s.firstPendingMs = nowMs;
    s.pendingTotal++;
    const text = reason.length > this.maxReasonChars ? `${reason.slice(0, this.maxReasonChars)}…` : reason;
    const key = `${peer}\u0000${text}`;
    const entry = s.pending.get(key);
    if (entry !== undefined) entry.count++;
    else if (s.pending.size < this.maxEntries) s.pending.set(key, { peer, reason: text, count: 1 });
    else s.otherCount++;
    return nowMs - s.lastLineMs >= this.config.intervalMs ? this.line(kind, s, nowMs) : null;
  }

  /** When the next waiting line is due; null when nothing waits. */
  nextDeadlineMs(): number | null {
    let next: number | null = null;
    for (const s of this.kinds.values()) {
      if (s.pendingTotal === 0) continue;
      const due = s.lastLineMs + this.config.intervalMs;
      if (next === null || due < next) next = due;
    }
    return next;
  }

  /** The lines due at `nowMs` (kinds in the order they were first seen). */
  onTimer(nowMs: number): RefusalLine[] {
    const out: RefusalLine[] = [];
    for (const [kind, s] of this.kinds) {
      if (s.pendingTotal > 0 && nowMs - s.lastLineMs >= this.config.intervalMs) out.push(this.line(kind, s, nowMs));
    }
    return out;
  }

  private line(kind: string, s: KindState, nowMs: number): RefusalLine {
    const counts = [...s.pending.values()].sort((a, b) => b.count - a.count || cmp(a.peer, b.peer) || cmp(a.reason, b.reason));
    const line: RefusalLine = { kind, refusals: s.pendingTotal, counts, otherCount: s.otherCount, spanMs: nowMs - s.firstPendingMs };
    s.pending = new Map();
    s.pendingTotal = 0;
    s.otherCount = 0;
    s.lastLineMs = nowMs;
    return line;
  }
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
