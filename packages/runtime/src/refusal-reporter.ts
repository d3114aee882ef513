/**
 * The shell around `RefusalLog`: wall clock, one timer for the lines that wait, and the log.
 * A line reads `{kind, refusals, counts: [{peer, reason, count}], otherCount, spanMs}` with
 * the caller's message (docs/errors.md, "Refusals in the log").
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from '@rocelab/telemetry';
import { RefusalLog, type RefusalLine, type RefusalLogConfig } from './refusal-log.js';

/** One line per kind per 10 s: a flood costs a few lines a minute, a single refusal shows at once. */
export const REFUSAL_LOG_INTERVAL_MS = 10_000;

export class RefusalReporter {
  private readonly core: RefusalLog;
  private readonly messages = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly log: Logger,
    config: RefusalLogConfig = { intervalMs: REFUSAL_LOG_INTERVAL_MS },
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    this.core = new RefusalLog(config);
  }

  /** Count a refusal of `kind` from `peer` (an address) for `reason`; `message` is the log line's text. */
  refused(kind: string, peer: string, reason: string, message: string): void {
    this.messages.set(kind, message);
    const line = this.core.note(kind, peer, reason, this.nowMs());
    if (line !== null) this.write(line);
    this.arm();
  }

  private write(line: RefusalLine): void {
    this.log.warn({ kind: line.kind, refusals: line.refusals, counts: line.counts, otherCount: line.otherCount, spanMs: Math.round(line.spanMs) }, this.messages.get(line.kind) ?? 'refused');
  }

  private arm(): void {
    const due = this.core.nextDeadlineMs();
    if (due === null || this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      for (const line of this.core.onTimer(this.nowMs())) this.write(line);
      this.arm();
    }, Math.max(0, due - this.nowMs()) + 1);
    this.timer.unref();
  }
}

const reporters = new WeakMap<Logger, RefusalReporter>();

/**
 * The reporter of a logger: the controller and every member log through their own child
 * logger, so each has its own reporter (and in-process pods do not share counts), while the
 * parts of one process (the controller's WebSocket and its fault API) share one.
 */
export function refusalReporterFor(log: Logger): RefusalReporter {
  let r = reporters.get(log);
  if (r === undefined) {
    r = new RefusalReporter(log);
    reporters.set(log, r);
  }
  return r;
}
