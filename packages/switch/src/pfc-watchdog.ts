/**
 * SONiC PFC watchdog for one (egress port, lossless queue), as a pure state machine
 * (DESIGN §5; PHYSICS §4.2–4.4). It runs SONiC's two scripts on the caller's samples:
 * detection — the classic `pfc_detect_broadcom.lua` (sonic-swss a00e7b61) — while the queue
 * is operational (and always in alert mode), restoration — `pfc_restore.lua` — while a
 * drop/forward queue is stormed. No timers: the switch owns the poll timer and calls `poll()`.
 * Defaults (SONiC `start_default`, `timing: drill`) are `WATCHDOG_VENDOR`/`WATCHDOG_DRILL` in defaults.ts.
 */
import type { FieldProblem } from './problem.js';

export type WatchdogAction = 'drop' | 'forward' | 'alert';

export interface WatchdogConfig {
  detectionPs: number;
  restorationPs: number;
  pollPs: number;
  action: WatchdogAction;
}

/** What the switch samples for one (port, queue) at each poll. */
export interface QueueSample {
  /** SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES */
  occupancyBytes: number;
  /** Cumulative packets transmitted from this queue (SAI_QUEUE_STAT_PACKETS). */
  txPackets: number;
  /** Cumulative PFC frames received on the port with this priority enabled (SAI_PORT_STAT_PFC_n_RX_PKTS). */
  pfcRxPackets: number;
  /** Cumulative not-paused → paused transitions of this priority caused by received PFC (SAI_PORT_STAT_PFC_n_ON2OFF_RX_PKTS). */
  pfcOn2OffPackets: number;
  /** SAI_QUEUE_ATTR_PAUSE_STATUS: the transmitter holds this priority now. */
  paused: boolean;
}

export type WatchdogState = 'operational' | 'stormed';
export type WatchdogEvent = 'none' | 'stormDetected' | 'stormRestored';

/** Problems in a watchdog config (see problem.ts). */
export type ConfigIssue = FieldProblem;

/** Times are positive integer ps; the poll may not exceed detection or restoration (SONiC CLI rule, PHYSICS §4.1). */
export function checkWatchdogConfig(c: WatchdogConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const field of ['detectionPs', 'restorationPs', 'pollPs'] as const) {
    if (!(Number.isSafeInteger(c[field]) && c[field] > 0)) issues.push({ field, expected: 'a positive integer number of ps', actual: c[field] });
  }
  if (!['drop', 'forward', 'alert'].includes(c.action)) issues.push({ field: 'action', expected: 'one of drop, forward, alert', actual: c.action });
  if (issues.length > 0) return issues;
  if (c.pollPs > c.detectionPs) issues.push({ field: 'pollPs', expected: `≤ detectionPs (${c.detectionPs})`, actual: c.pollPs });
  if (c.pollPs > c.restorationPs) issues.push({ field: 'pollPs', expected: `≤ restorationPs (${c.restorationPs})`, actual: c.pollPs });
  return issues;
}

/** The detection script's own `_last` values (the PFC RX baseline is shared, see `pfcRxLast`). */
type DetectBaseline = Pick<QueueSample, 'txPackets' | 'pfcOn2OffPackets' | 'paused'>;

export class PfcWatchdog {
  detections = 0;
  restorations = 0;
  private current: WatchdogState = 'operational';
  private detectionLeftPs: number;
  private restorationLeftPs: number;
  /**
   * Written only on polls where detection runs, as the lua saves its `_last` fields only then:
   * after a drop/forward storm, the first detection poll compares with the poll that declared it.
   */
  private detectLast: DetectBaseline | null = null;
  /** `SAI_PORT_STAT_PFC_n_RX_PKTS_last` is one field both scripts write, so it follows every poll. */
  private pfcRxLast: number | null = null;

  constructor(private config: WatchdogConfig) {
    const issues = checkWatchdogConfig(config);
    if (issues.length > 0) {
      throw new RangeError(`PFC watchdog config: ${issues.map((i) => `${i.field} expected ${i.expected}, got ${String(i.actual)}`).join('; ')}`);
    }
    this.detectionLeftPs = config.detectionPs;
    this.restorationLeftPs = config.restorationPs;
  }

  /** A new action (the `watchdog` fault); detection and restoration go on as they were. */
  setAction(action: WatchdogAction): void {
    this.config = { ...this.config, action };
  }

  get state(): WatchdogState {
    return this.current;
  }

  /** Drop mitigation: discard this queue's packets (reason `watchdog`) and ignore its received pauses (PHYSICS §4.4). */
  get dropping(): boolean {
    return this.current === 'stormed' && this.config.action === 'drop';
  }

  /** Drop and forward both stop honouring received PFC for this queue; alert only reports (PHYSICS §4.4). */
  get ignoringPauses(): boolean {
    return this.current === 'stormed' && this.config.action !== 'alert';
  }

  /** One poll: returns what happened. The first poll only records the sample (no previous one). */
  poll(sample: QueueSample): WatchdogEvent {
    const detecting = this.current === 'operational' || this.config.action === 'alert';
    const event = detecting ? this.detect(sample) : this.restore(sample);
    if (detecting) this.detectLast = { txPackets: sample.txPackets, pfcOn2OffPackets: sample.pfcOn2OffPackets, paused: sample.paused };
    this.pfcRxLast = sample.pfcRxPackets;
    return event;
  }

  /** `pfc_detect_broadcom.lua` at a00e7b61 (PHYSICS §4.2). */
  private detect(s: QueueSample): WatchdogEvent {
    const last = this.detectLast;
    if (last === null || this.pfcRxLast === null) return 'none';
    const pauseFrames = s.pfcRxPackets - this.pfcRxLast > 0;
    // Clause 1: a backlog, more pauses, and nothing left the queue.
    const stuck = s.occupancyBytes > 0 && s.txPackets === last.txPackets && pauseFrames;
    // Clause 2: empty but held paused at both samples by refreshes, with no new pause-on edge.
    const held = s.occupancyBytes === 0 && pauseFrames && s.pfcOn2OffPackets === last.pfcOn2OffPackets && last.paused && s.paused;
    if (!(stuck || held)) {
      this.detectionLeftPs = this.config.detectionPs;
      // Alert mode has no restoration script: the first clean poll restores.
      return this.current === 'stormed' ? this.transition('operational') : 'none';
    }
    if (this.detectionLeftPs > this.config.pollPs) {
      this.detectionLeftPs -= this.config.pollPs;
      return 'none';
    }
    this.detectionLeftPs = this.config.detectionPs;
    // The lua publishes `storm` again while an alert queue stays stormed; orchagent ignores a storm
    // for a queue that already has a handler (`startWdActionOnQueue`), so it is counted once.
    return this.current === 'operational' ? this.transition('stormed') : 'none';
  }

  /** `pfc_restore.lua` (PHYSICS §4.3): charges the configured poll interval per quiet poll. */
  private restore(s: QueueSample): WatchdogEvent {
    if (this.pfcRxLast === null) throw new Error('PFC watchdog: stormed without a PFC RX baseline');
    if (s.pfcRxPackets - this.pfcRxLast !== 0) {
      this.restorationLeftPs = this.config.restorationPs;
      return 'none';
    }
    if (this.restorationLeftPs > this.config.pollPs) {
      this.restorationLeftPs -= this.config.pollPs;
      return 'none';
    }
    return this.transition('operational');
  }

  private transition(to: WatchdogState): WatchdogEvent {
    if (to === this.current) throw new Error(`PFC watchdog: transition ${this.current} → ${to}`);
    this.current = to;
    // Restoration always starts a full period: the lua resets its time left on restore and on every pause frame.
    this.restorationLeftPs = this.config.restorationPs;
    switch (to) {
      case 'stormed':
        this.detections++;
        return 'stormDetected';
      case 'operational':
        this.restorations++;
        return 'stormRestored';
    }
  }
}
