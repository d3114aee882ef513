/**
 * The NIC side of PFC (DESIGN §5, PHYSICS §2.3, §4.6): the receive buffer, the pauses it sends
 * to the ToR, the malfunctioning-NIC storm, and stall prevention (the NIC watchdog).
 *
 * Frames wait in the receive buffer until host memory takes them at `drainBps`; a buffer above
 * XOFF pauses the ToR (largest quanta, renewed every half pause time) until it falls to XON —
 * the slow receiver. A malfunctioning NIC pauses whatever its buffer says. Stall prevention
 * (mlx5 `pfc-prevention-tout`): after `minorPs` of continuous pausing it counts a warning, after
 * `criticalPs` it stops sending pauses and counts an error; frames that then no longer fit are
 * dropped (`buffer`). A buffer-driven stall re-arms once the buffer drains below XON; a
 * malfunction does not clear by itself, so its pauses stay off.
 */
import { PFC_MAX_QUANTA, PFC_PRIORITIES, pfcFrame, type Frame } from '@rocelab/wire';

export interface NicWatchdogConfig {
  enabled: boolean;
  minorPs: number;
  criticalPs: number;
}

export interface NicPfcConfig {
  bufferBytes: number;
  /** Pause the ToR when the buffer holds at least this many bytes. */
  xoffBytes: number;
  /** Resume when it holds at most this many. */
  xonBytes: number;
  /** Rate at which host memory drains the buffer, bit/s. */
  drainBps: number;
  /** Priorities the NIC pauses (its lossless ones). */
  lossless: readonly number[];
  /** Renewal period of a standing pause (half the pause time at the link rate). */
  refreshPs: number;
  watchdog: NicWatchdogConfig;
}

export interface NicPfcDeps {
  /** Send a PFC frame to the ToR (MAC control: ahead of data). */
  sendPause(frame: Frame): void;
  /** Arm a named deadline of this module (`drain`, `refresh`, `minor`, `critical`); null cancels. */
  setTimer(name: NicPfcTimer, atPs: number | null): void;
  /** Serialization of `bytes` at `bps`, ps (the engine's rounding). */
  timePs(bytes: number, bps: number): number;
  /** Stall prevention counted an event (for traces and logs). */
  onStormEvent?(level: keyof StormEvents): void;
}

export type NicPfcTimer = 'drain' | 'refresh' | 'minor' | 'critical';

/** Why the NIC is pausing its ToR right now. */
export type PausingCause = 'none' | 'buffer' | 'storm';

export interface StormEvents {
  warning: number;
  error: number;
}

export class NicPfc {
  private readonly queue: Array<{ frame: Frame; bytes: number }> = [];
  private head = 0;
  occupancyBytes = 0;
  /** The most the receive buffer ever held. */
  peakOccupancyBytes = 0;
  private draining = false;
  private cause: PausingCause = 'none';
  private malfunctioning = false;
  /** Stall prevention tripped: no pauses until it re-arms. */
  private silenced = false;
  /** PFC turned off on this NIC (the `pfcMisconfig` fault): it never pauses. */
  private disabled = false;
  /** Host memory's drain rate now (a `slowReceiver` fault changes it). */
  private drainBps: number;
  private pausingSincePs = 0;
  private pausingTotalPs = 0;
  readonly stormEvents: StormEvents = { warning: 0, error: 0 };
  private readonly enable: number;

  constructor(
    private readonly config: NicPfcConfig,
    private readonly deps: NicPfcDeps,
  ) {
    if (!(config.xonBytes < config.xoffBytes && config.xoffBytes <= config.bufferBytes)) {
      throw new RangeError(`NIC PFC: need XON (${config.xonBytes}) < XOFF (${config.xoffBytes}) ≤ buffer (${config.bufferBytes})`);
    }
    this.enable = config.lossless.reduce((mask, p) => mask | (1 << p), 0);
    this.drainBps = config.drainBps;
  }

  get pausing(): PausingCause {
    return this.cause;
  }

  /** Frames waiting for host memory. */
  get heldFrames(): number {
    return this.queue.length - this.head;
  }

  /**
   * A frame arrived from the ToR. Returns false when it does not fit (the caller drops it,
   * reason `buffer`): with PFC working this happens only once stall prevention silenced it.
   */
  receive(nowPs: number, frame: Frame, bytes: number): boolean {
    if (this.occupancyBytes + bytes > this.config.bufferBytes) return false;
    this.queue.push({ frame, bytes });
    this.occupancyBytes += bytes;
    if (this.occupancyBytes > this.peakOccupancyBytes) this.peakOccupancyBytes = this.occupancyBytes;
    if (!this.draining) this.startDrain(nowPs);
    if (this.cause === 'none' && this.occupancyBytes >= this.config.xoffBytes && this.config.lossless.length > 0) this.startPausing(nowPs, 'buffer');
    return true;
  }

  /** The head frame has reached host memory: hand it over (the caller processes it). */
  drained(nowPs: number): Frame {
    const { frame, bytes } = this.queue[this.head]!;
    this.queue[this.head++] = undefined as never;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    this.occupancyBytes -= bytes;
    this.draining = false;
    if (this.heldFrames > 0) this.startDrain(nowPs);
    if (this.occupancyBytes <= this.config.xonBytes) {
      if (this.cause === 'buffer') this.stopPausing(nowPs);
      if (this.silenced && !this.malfunctioning) this.silenced = false; // the stall cleared: re-arm
    }
    return frame;
  }

  /** The malfunction ends: pause again only as the buffer says. */
  stopStorm(nowPs: number): void {
    this.malfunctioning = false;
    if (this.cause !== 'storm') return;
    if (this.occupancyBytes >= this.config.xoffBytes) this.cause = 'buffer';
    else this.stopPausing(nowPs);
  }

  /** Host memory drains at `bps` from the next frame on (`slowReceiver`); null: as configured. */
  setDrainBps(bps: number | null): void {
    this.drainBps = bps ?? this.config.drainBps;
  }

  /** PFC off (no more pauses: the last one runs out on its own) or back on (`pfcMisconfig`). */
  setEnabled(nowPs: number, enabled: boolean): void {
    this.disabled = !enabled;
    if (this.disabled) {
      this.endPausing(nowPs);
      this.deps.setTimer('refresh', null);
    } else if (this.malfunctioning) {
      this.startPausing(nowPs, 'storm');
    } else if (this.occupancyBytes >= this.config.xoffBytes && this.config.lossless.length > 0) {
      this.startPausing(nowPs, 'buffer');
    }
  }

  /** The malfunctioning-NIC fault: pause the ToR from now on, whatever the buffer says. */
  startStorm(nowPs: number): void {
    this.malfunctioning = true;
    if (this.silenced) return;
    if (this.cause === 'buffer') this.cause = 'storm';
    else if (this.cause === 'none') this.startPausing(nowPs, 'storm');
  }

  onTimer(nowPs: number, timer: NicPfcTimer): Frame | null {
    switch (timer) {
      case 'drain':
        return this.drained(nowPs);
      case 'refresh':
        if (this.cause !== 'none' && !this.silenced) this.sendPause(nowPs, PFC_MAX_QUANTA);
        return null;
      case 'minor':
        this.stormEvents.warning++;
        this.deps.onStormEvent?.('warning');
        return null;
      case 'critical':
        // Stall prevention: stop pausing (the ToR's pause runs out on its own) and count an error.
        this.stormEvents.error++;
        this.deps.onStormEvent?.('error');
        this.silenced = true;
        this.endPausing(nowPs);
        return null;
    }
  }

  /** Virtual time this NIC has held its ToR paused, up to `nowPs`. */
  pausingPs(nowPs: number): number {
    return this.pausingTotalPs + (this.cause === 'none' ? 0 : nowPs - this.pausingSincePs);
  }

  private startDrain(nowPs: number): void {
    this.draining = true;
    this.deps.setTimer('drain', nowPs + this.deps.timePs(this.queue[this.head]!.bytes, this.drainBps));
  }

  private startPausing(nowPs: number, cause: Exclude<PausingCause, 'none'>): void {
    if (this.silenced || this.disabled) return;
    this.cause = cause;
    this.pausingSincePs = nowPs;
    this.sendPause(nowPs, PFC_MAX_QUANTA);
    const w = this.config.watchdog;
    if (w.enabled) {
      this.deps.setTimer('minor', nowPs + w.minorPs);
      this.deps.setTimer('critical', nowPs + w.criticalPs);
    }
  }

  /** XON: resume the ToR now. */
  private stopPausing(nowPs: number): void {
    this.sendPause(nowPs, 0);
    this.endPausing(nowPs);
  }

  private endPausing(nowPs: number): void {
    if (this.cause === 'none') return;
    this.pausingTotalPs += nowPs - this.pausingSincePs;
    this.cause = 'none';
    for (const t of ['refresh', 'minor', 'critical'] as const) this.deps.setTimer(t, null);
  }

  private sendPause(nowPs: number, quanta: number): void {
    const q = Array.from({ length: PFC_PRIORITIES }, (_, p) => ((this.enable >> p) & 1 ? quanta : 0));
    this.deps.sendPause(pfcFrame(this.enable, q));
    this.deps.setTimer('refresh', quanta === 0 ? null : nowPs + this.config.refreshPs);
  }
}
