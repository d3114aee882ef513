/**
 * How a process of the pod tells a dead peer from a slow one (issue 22: a pod on a loaded machine
 * is slower, never dead). A closed connection is a death, noticed at once. Silence is one only
 * after the **hang timeout** (`ROCELAB_HANG_TIMEOUT_MS`, default 5 min), and only time during
 * which *this* process ran on time counts toward it: each check comes from a timer every
 * `intervalMs`, and of the time since the previous check at most 1.5 intervals count. A process
 * that was itself stopped or starved of CPU saw nothing of its peers meanwhile (their answers
 * may be waiting unread in its sockets), so its own stall never counts against them; a peer
 * stopped with SIGSTOP keeps its sockets open and is revealed only by this silence.
 *
 * On a loaded machine every process runs late now and then, but a running process answers a
 * ping within seconds (no handler runs for more than some tens of milliseconds of CPU), so
 * minutes of silence while the observer itself ran on time mean a peer that is stopped or hung.
 * Liveness is judged by answers to pings, never by progress: a member blocked waiting for a
 * stopped neighbour still answers its own neighbours, so a stall is never mistaken for a hang
 * one hop away.
 * Pure: the clock is passed in, so the rules are tested without waiting. Wall time here decides
 * only when a silent peer is given up on, never what the pod computes.
 */

/** Default hang timeout: longer than any stall a loaded machine causes, short enough that a hung run ends. */
export const DEFAULT_HANG_TIMEOUT_MS = 5 * 60_000;

/** How often liveness is checked (and the controller and members ping each other). */
export const LIVENESS_INTERVAL_MS = 2_000;

/**
 * The time since the previous check that counts as this process's own running time: all of it
 * when the check came on time, at most 1.5 intervals when it came late.
 */
export function countedMs(gapMs: number, intervalMs: number): number {
  return Math.max(0, Math.min(gapMs, 1.5 * intervalMs));
}

/**
 * One peer's silence since its last sign of life (a pong, any message: `heard`), counted in the
 * observer's running time by `check`, on a timer every `intervalMs`.
 */
export class SilenceWatch {
  private silentMs = 0;
  private lastCheckMs: number;

  constructor(
    readonly limitMs: number,
    readonly intervalMs: number,
    nowMs: number,
  ) {
    this.lastCheckMs = nowMs;
  }

  /** The peer answered (or spoke) at `nowMs`: its silence starts over from then. */
  heard(nowMs: number): void {
    this.silentMs = 0;
    this.lastCheckMs = nowMs;
  }

  /** Whether the peer has now been silent for the limit, counted in this process's running time. */
  check(nowMs: number): boolean {
    this.silentMs += countedMs(nowMs - this.lastCheckMs, this.intervalMs);
    this.lastCheckMs = nowMs;
    return this.silentMs >= this.limitMs;
  }

  /** Silence counted so far (for the message that gives up on the peer). */
  get silenceMs(): number {
    return this.silentMs;
  }
}

/**
 * Nobody waits forever (DESIGN §3), even for a neighbour that answers pings: a member awaiting a
 * neighbour's batch that does not come within `limitMs` of its own running time closes that
 * link and carries on. A neighbour that is stopped or hung is given up on sooner, by the link's
 * heartbeat (the hang timeout); this is the last resort against a link that stays alive but
 * carries nothing (a bug), so the member passes twice the hang timeout. Progress is any window
 * run or batch received; anything but awaiting batches (running, waiting for a grant: the
 * controller's pace) restarts the count.
 */
export class BatchWatchdog {
  private progress = 0;
  private seen = -1;
  private readonly silence: SilenceWatch;

  constructor(limitMs: number, nowMs: number) {
    this.silence = new SilenceWatch(limitMs, LIVENESS_INTERVAL_MS, nowMs);
  }

  /** A window ran or a batch arrived. */
  onProgress(): void {
    this.progress++;
  }

  /** Whether the member has been stuck awaiting batches for the limit (called every `checkEveryMs`). */
  expired(nowMs: number, awaitingBatches: boolean): boolean {
    if (!awaitingBatches || this.progress !== this.seen) {
      this.seen = this.progress;
      this.silence.heard(nowMs);
      return false;
    }
    return this.silence.check(nowMs);
  }

  get limitMs(): number {
    return this.silence.limitMs;
  }

  get checkEveryMs(): number {
    return this.silence.intervalMs;
  }
}

export class LivenessConfigError extends Error {}

/** `ROCELAB_HANG_TIMEOUT_MS` (a bad value is bad input: exit 2), else the default. */
export function hangTimeoutFromEnv(env: Readonly<Record<string, string | undefined>>): number {
  const text = env.ROCELAB_HANG_TIMEOUT_MS;
  if (text === undefined || text === '') return DEFAULT_HANG_TIMEOUT_MS;
  const ms = Number(text);
  if (!Number.isSafeInteger(ms) || ms < 2 * LIVENESS_INTERVAL_MS) {
    throw new LivenessConfigError(`ROCELAB_HANG_TIMEOUT_MS=${JSON.stringify(text)}: expected a whole number of milliseconds, at least ${2 * LIVENESS_INTERVAL_MS} (default ${DEFAULT_HANG_TIMEOUT_MS}: 5 min)`);
  }
  return ms;
}
