/**
 * PFC generation (IEEE 802.1Qbb) at a congested ingress (PHYSICS §2.2): crossing XOFF on an
 * (ingress port, lossless priority) sends a pause with the configured quanta upstream and
 * refreshes it before it expires (every half pause time by default) while the group stays
 * above XON; falling below XON sends a resume (zero quanta). In `hpcc-ns3` a pause holds
 * until the explicit resume, so there is no refresh.
 *
 * The MMU decides XOFF/XON; this module owns the per-group pausing state, the frames and the
 * refresh deadlines (the caller's named timers), and the time each group held its peer.
 *
 * A storm (the `switchPauseStorm` fault, issue 24) holds a group paused whatever the MMU says, as
 * the NIC's malfunction does (`nic-pfc.ts`): the same pause, refreshed the same way, and no resume
 * until it ends; then the group pauses only as its buffer says.
 */
import { PFC_PRIORITIES, pfcFrame, type Frame } from '@rocelab/wire';

export interface PfcGeneratorDeps {
  /** Send a PFC frame on `port` (MAC control: ahead of data, never paused). */
  send(port: number, frame: Frame): void;
  /** Arm the refresh timer of (`port`, `pg`) for `atPs`; `null` cancels it. */
  setRefresh(port: number, pg: number, atPs: number | null): void;
}

export interface PfcGeneratorConfig {
  quanta: number;
  /** Refresh period of a pause on each port; null = no refresh (pause until resume). */
  refreshPs: ReadonlyArray<number | null>;
}

const quantaFor = (pg: number, quanta: number): number[] => {
  const q = new Array<number>(PFC_PRIORITIES).fill(0);
  q[pg] = quanta;
  return q;
};

export class PfcGenerator {
  private readonly since: Float64Array;
  private readonly total: Float64Array;
  private readonly pausingNow: Uint8Array;
  /** Per group: 1 while a storm holds it paused, with when it started and the time it stormed before. */
  private readonly storming: Uint8Array;
  private readonly stormSince: Float64Array;
  private readonly stormTotal: Float64Array;

  constructor(
    readonly ports: number,
    private readonly config: PfcGeneratorConfig,
    private readonly deps: PfcGeneratorDeps,
  ) {
    this.since = new Float64Array(ports * PFC_PRIORITIES);
    this.total = new Float64Array(ports * PFC_PRIORITIES);
    this.pausingNow = new Uint8Array(ports * PFC_PRIORITIES);
    this.storming = new Uint8Array(ports * PFC_PRIORITIES);
    this.stormSince = new Float64Array(ports * PFC_PRIORITIES);
    this.stormTotal = new Float64Array(ports * PFC_PRIORITIES);
  }

  /** This switch currently holds the upstream of (`port`, `pg`) paused. */
  pausing(port: number, pg: number): boolean {
    return this.pausingNow[port * PFC_PRIORITIES + pg] === 1;
  }

  /** The MMU crossed XOFF on the group: pause the upstream (once) and start refreshing. */
  xoff(nowPs: number, port: number, pg: number): void {
    const i = port * PFC_PRIORITIES + pg;
    if (this.pausingNow[i] === 1) return;
    this.pausingNow[i] = 1;
    this.since[i] = nowPs;
    this.sendPause(nowPs, port, pg);
  }

  /** The group fell below XON: resume the upstream now (not while a storm holds it). */
  xon(nowPs: number, port: number, pg: number): void {
    const i = port * PFC_PRIORITIES + pg;
    if (this.pausingNow[i] === 0 || this.storming[i] === 1) return;
    this.pausingNow[i] = 0;
    this.total[i] = this.total[i]! + (nowPs - this.since[i]!);
    this.deps.setRefresh(port, pg, null);
    this.deps.send(port, pfcFrame(1 << pg, quantaFor(pg, 0)));
  }

  /** The refresh deadline of a group came: renew the pause if it still holds. */
  onRefresh(nowPs: number, port: number, pg: number): void {
    if (this.pausing(port, pg)) this.sendPause(nowPs, port, pg);
  }

  /** The link went down: the peer forgot our pauses, and we stop sending them. */
  forget(nowPs: number, port: number): void {
    for (let pg = 0; pg < PFC_PRIORITIES; pg++) {
      const i = port * PFC_PRIORITIES + pg;
      if (this.pausingNow[i] === 0) continue;
      this.pausingNow[i] = 0;
      this.total[i] = this.total[i]! + (nowPs - this.since[i]!);
      this.deps.setRefresh(port, pg, null);
    }
  }

  /** A storm starts on the group: pause the upstream (if not already) and keep refreshing whatever the buffer says. */
  startStorm(nowPs: number, port: number, pg: number): void {
    const i = port * PFC_PRIORITIES + pg;
    if (this.storming[i] === 1) return;
    this.storming[i] = 1;
    this.stormSince[i] = nowPs;
    this.xoff(nowPs, port, pg);
  }

  /** The storm ends: resume the upstream unless the buffer itself is above XOFF (`congested`). */
  stopStorm(nowPs: number, port: number, pg: number, congested: boolean): void {
    const i = port * PFC_PRIORITIES + pg;
    if (this.storming[i] === 0) return;
    this.storming[i] = 0;
    this.stormTotal[i] = this.stormTotal[i]! + (nowPs - this.stormSince[i]!);
    if (!congested) this.xon(nowPs, port, pg);
  }

  /** A storm holds the group paused now. */
  stormingNow(port: number, pg: number): boolean {
    return this.storming[port * PFC_PRIORITIES + pg] === 1;
  }

  /** Virtual time a storm has held this group, up to `nowPs`. */
  stormPs(port: number, pg: number, nowPs: number): number {
    const i = port * PFC_PRIORITIES + pg;
    return this.stormTotal[i]! + (this.storming[i] === 1 ? nowPs - this.stormSince[i]! : 0);
  }

  /** The link came back up: a storm still in force pauses the peer again (a down link made it forget). */
  renewStorms(nowPs: number, port: number): void {
    for (let pg = 0; pg < PFC_PRIORITIES; pg++) if (this.storming[port * PFC_PRIORITIES + pg] === 1) this.xoff(nowPs, port, pg);
  }

  /** Virtual time this group has held its upstream paused, up to `nowPs`. */
  pausingPs(port: number, pg: number, nowPs: number): number {
    const i = port * PFC_PRIORITIES + pg;
    return this.total[i]! + (this.pausingNow[i] === 1 ? nowPs - this.since[i]! : 0);
  }

  private sendPause(nowPs: number, port: number, pg: number): void {
    this.deps.send(port, pfcFrame(1 << pg, quantaFor(pg, this.config.quanta)));
    const refresh = this.config.refreshPs[port] ?? null;
    if (refresh !== null) this.deps.setRefresh(port, pg, nowPs + refresh);
  }
}
