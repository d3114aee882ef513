/**
 * Nobody waits forever (DESIGN §3): a member awaiting a neighbour's batch that does not come
 * within `limitMs` of wall time closes that link as misbehaving and carries on. Progress is
 * any window run or batch received; the clock is injected, so the rule is tested without
 * waiting. Wall time here decides only when a silent link is given up on.
 */
export class BatchWatchdog {
  private progress = 0;
  private seen = -1;
  private sinceMs: number;

  constructor(
    private readonly limitMs: number,
    nowMs: number,
  ) {
    this.sinceMs = nowMs;
  }

  /** A window ran or a batch arrived. */
  onProgress(): void {
    this.progress++;
  }

  /**
   * Whether the member has been stuck awaiting batches for longer than the limit. Anything but
   * awaiting (running, waiting for a grant: the controller's pace) restarts the count.
   */
  expired(nowMs: number, awaitingBatches: boolean): boolean {
    if (!awaitingBatches || this.progress !== this.seen) {
      this.seen = this.progress;
      this.sinceMs = nowMs;
      return false;
    }
    return nowMs - this.sinceMs >= this.limitMs;
  }

  /** How often to check so that a stall is noticed within a quarter of the limit. */
  get checkEveryMs(): number {
    return Math.max(1000, this.limitMs / 4);
  }
}
