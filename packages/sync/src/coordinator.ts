/**
 * The controller side of the conservative window protocol (DESIGN §3), as a pure state machine.
 *
 * It grants leases of M windows of width W (the smallest lookahead between processes). At a
 * lease end every member reports its next event time; if the global next event (or fault) is
 * at least `idleJumpWindows` windows away the next lease jumps straight to it with M = 1,
 * otherwise M doubles up to a cap. No lease starts past a scheduled fault, and a fault travels
 * with the grant of the lease containing its time. Wall-clock pacing is not in here: the
 * service holds each grant until its wall time; the grants themselves never depend on it.
 */
import { type Grant, type LinkCounts, type LinkLossNote, type Report, type TimedFault } from './types.js';

export interface CoordinatorConfig<F extends TimedFault> {
  members: readonly string[];
  windowPs: number;
  /** Virtual end of the run; null = until `requestStop`. */
  endPs: number | null;
  maxWindowsPerLease?: number;
  idleJumpWindows?: number;
  /** Cap on a lease's virtual span (the service derives it from the dilation); null = none. */
  maxLeasePs?: number | null;
  /** Virtual span granted at once when nothing at all is pending and the run has no end. */
  idleSpanPs?: number;
  faults?: readonly F[];
  /** For each member, the names of the links that have an end on one of its nodes. */
  linksOfMember?: ReadonlyMap<string, readonly string[]>;
}

export type CoordinatorState = 'idle' | 'leasing' | 'finished';

export type Step<F extends TimedFault> = { type: 'grant'; grant: Grant<F> } | { type: 'finished'; endPs: number } | { type: 'wait' };

interface PendingLoss {
  sent?: number;
  accepted?: number;
}

export class Coordinator<F extends TimedFault = TimedFault> {
  private state: CoordinatorState = 'idle';
  private readonly alive: Set<string>;
  private readonly pendingFaults: F[];
  private current: Grant<F> | null = null;
  private readonly reports = new Map<string, Report>();
  private stopRequestedFlag = false;
  private readonly linksDownNext = new Set<string>();
  private readonly declaredDown = new Set<string>();
  private readonly losses = new Map<string, PendingLoss>();
  private readonly settled = new Set<string>();
  private readonly lossesNext: LinkLossNote[] = [];
  private readonly everMember: ReadonlySet<string>;
  private readonly lostNext = new Set<string>();
  private readonly joiningNext = new Set<string>();
  private readonly linksUpNext = new Set<string>();
  private maxWindows: number;
  private readonly idleJumpWindows: number;
  private idleSpanPs: number;
  private maxLeasePs: number | null;
  /** Windows granted so far (leases × windows). */
  windowsGranted = 0;

  constructor(private readonly config: CoordinatorConfig<F>) {
    if (!(Number.isSafeInteger(config.windowPs) && config.windowPs > 0)) throw new RangeError(`window must be a positive integer ps, got ${config.windowPs}`);
    if (config.members.length === 0) throw new RangeError('a pod needs at least one member');
    this.alive = new Set(config.members);
    this.everMember = new Set(config.members);
    this.pendingFaults = [...(config.faults ?? [])].sort((a, b) => a.atPs - b.atPs || a.id - b.id);
    this.maxWindows = config.maxWindowsPerLease ?? 128;
    this.idleJumpWindows = config.idleJumpWindows ?? 3;
    this.idleSpanPs = Math.max(config.windowPs, config.idleSpanPs ?? config.windowPs);
    this.maxLeasePs = config.maxLeasePs ?? null;
  }

  get phase(): CoordinatorState {
    return this.state;
  }

  get lease(): Grant<F> | null {
    return this.current;
  }

  get members(): string[] {
    return [...this.alive];
  }

  /**
   * The most windows a lease may have from the next grant on (`lease-size.ts`: the controller
   * sizes leases by their measured wall time). Never changes what members compute.
   */
  setMaxWindowsPerLease(windows: number): void {
    if (!(Number.isSafeInteger(windows) && windows > 0)) throw new RangeError(`windows per lease must be a positive integer, got ${windows}`);
    this.maxWindows = windows;
  }

  /**
   * The caps a pace sets from the next grant on (`maxLeasePs`, `idleSpanPs` of the config): a pod
   * that chooses its pace after its first windows (`auto-pace.ts`) is unpaced until then. Never
   * changes what members compute.
   */
  setLeaseSpan(maxLeasePs: number | null, idleSpanPs: number): void {
    if (maxLeasePs !== null && !(maxLeasePs > 0)) throw new RangeError(`a lease's span cap must be positive, got ${maxLeasePs}`);
    this.maxLeasePs = maxLeasePs;
    this.idleSpanPs = Math.max(this.config.windowPs, idleSpanPs);
  }

  /** The first lease: one window from time 0. */
  start(): Step<F> {
    if (this.state !== 'idle') throw new Error(`coordinator: start() in state ${this.state}`);
    this.state = 'leasing';
    return this.grantFrom(0, null, 0);
  }

  onReport(report: Report): Step<F> {
    const lease = this.current;
    if (this.state !== 'leasing' || lease === null) throw new Error(`coordinator: report in state ${this.state}`);
    if (report.lease !== lease.lease) throw new Error(`coordinator: ${report.member} reported lease ${report.lease}, current is ${lease.lease}`);
    if (!this.alive.has(report.member)) throw new Error(`coordinator: report from unknown or lost member ${report.member}`);
    if (this.reports.has(report.member)) throw new Error(`coordinator: ${report.member} reported lease ${lease.lease} twice`);
    this.reports.set(report.member, report);
    for (const link of report.linksFailed) this.declareDown(link);
    for (const counts of report.linkCounts) this.noteCounts(counts);
    return this.advanceIfComplete();
  }

  /**
   * A member's process or connection is gone: its links go down at the next lease, and nobody
   * waits for it any more. The pod carries on with the others; with none left, the run ends.
   */
  onMemberLost(member: string): Step<F> {
    if (!this.alive.delete(member)) {
      // Lost again before its rejoin took effect: it simply does not join.
      this.joiningNext.delete(member);
      return { type: 'wait' };
    }
    this.reports.delete(member);
    this.lostNext.add(member);
    for (const link of this.linksOf(member)) {
      this.linksUpNext.delete(link);
      this.declareDown(link);
    }
    if (this.alive.size === 0) {
      this.state = 'finished';
      return { type: 'finished', endPs: this.current?.endPs ?? 0 };
    }
    return this.state === 'leasing' ? this.advanceIfComplete() : { type: 'wait' };
  }

  /**
   * A lost member is back (a restarted process with fresh state, its links connected): it runs
   * from the next lease on, and its links come up at that lease's start. Its links' failure
   * bookkeeping starts afresh, so they can fail (and be settled) again.
   */
  rejoin(member: string): void {
    if (this.alive.has(member) || this.joiningNext.has(member)) throw new Error(`coordinator: ${member} rejoins but was not lost`);
    if (!this.everMember.has(member)) throw new Error(`coordinator: ${member} was never a member`);
    if (this.state === 'finished') return;
    this.joiningNext.add(member);
    for (const link of this.linksOf(member)) {
      // A link to a member that is itself lost stays down until that one rejoins too.
      if (!this.endsPresent(link)) continue;
      this.declaredDown.delete(link);
      this.linksDownNext.delete(link);
      this.linksUpNext.add(link);
      for (const direction of directionsOf(link)) this.forgetDirection(direction);
    }
  }

  /** Members that are neither alive nor rejoining. */
  get lostMembers(): string[] {
    return [...this.everMember].filter((m) => !this.alive.has(m) && !this.joiningNext.has(m)).sort();
  }

  /**
   * A live fault ("now") is stamped with the start of the first lease not yet granted, so the
   * fault log replays the run exactly.
   */
  injectNow(fault: Omit<F, 'atPs'>): F {
    const atPs = this.current === null ? 0 : this.current.endPs;
    const stamped = { ...fault, atPs } as F;
    this.schedule(stamped);
    return stamped;
  }

  /** A fault at a given future virtual time (not before the first lease not yet granted). */
  schedule(fault: F): void {
    const earliest = this.current === null ? 0 : this.current.endPs;
    if (fault.atPs < earliest) throw new RangeError(`fault ${fault.id} at ${fault.atPs} ps is in the past (next lease starts at ${earliest} ps)`);
    this.pendingFaults.push(fault);
    this.pendingFaults.sort((a, b) => a.atPs - b.atPs || a.id - b.id);
  }

  /** Withdraws a fault no grant has carried yet; false when it already went out (or never was). */
  cancel(id: number): boolean {
    const i = this.pendingFaults.findIndex((f) => f.id === id);
    if (i < 0) return false;
    this.pendingFaults.splice(i, 1);
    return true;
  }

  /** The start of the first lease not yet granted: the earliest time a new fault may apply. */
  get nextLeaseStartPs(): number {
    return this.current === null ? 0 : this.current.endPs;
  }

  /**
   * Losses settled by the last reports, which no grant will carry any more: the service adds
   * them to the senders' final counts.
   */
  get lossesAtEnd(): LinkLossNote[] {
    return this.state === 'finished' ? [...this.lossesNext] : [];
  }

  /** Whether `requestStop` was called: the grants still to come close the run. */
  get stopRequested(): boolean {
    return this.stopRequestedFlag;
  }

  /** End the run at the current lease's end: the next grant is the closing one. */
  requestStop(): void {
    this.stopRequestedFlag = true;
  }

  private advanceIfComplete(): Step<F> {
    const lease = this.current!;
    for (const member of this.alive) if (!this.reports.has(member)) return { type: 'wait' };
    if (lease.final) {
      this.state = 'finished';
      return { type: 'finished', endPs: lease.endPs };
    }
    let next: number | null = null;
    for (const report of this.reports.values()) {
      if (report.nextEventPs !== null && (next === null || report.nextEventPs < next)) next = report.nextEventPs;
    }
    this.reports.clear();
    const fault = this.pendingFaults[0];
    if (fault !== undefined && (next === null || fault.atPs < next)) next = fault.atPs;
    return this.grantFrom(lease.endPs, next, lease.windows);
  }

  private grantFrom(endOfLastPs: number, nextEventPs: number | null, lastWindows: number): Step<F> {
    const W = this.config.windowPs;
    const runEnd = this.config.endPs;
    const closing = this.stopRequestedFlag || (runEnd !== null && endOfLastPs >= runEnd);
    let startPs = endOfLastPs;
    let windowPs = W;
    let windows: number;
    if (closing) {
      windows = 0;
    } else if (nextEventPs === null && runEnd === null && lastWindows > 0) {
      // Nothing pending anywhere (as reported, so never for the first lease, before any report)
      // and no end: any span is safe; keep it short so live faults land soon.
      windowPs = this.idleSpanPs;
      windows = 1;
    } else if (lastWindows > 0 && (nextEventPs === null || nextEventPs >= endOfLastPs + this.idleJumpWindows * W)) {
      startPs = Math.min(nextEventPs ?? runEnd!, runEnd ?? Infinity);
      windows = startPs === runEnd ? 0 : 1;
    } else {
      windows = Math.min(this.maxWindows, Math.max(1, lastWindows * 2));
    }
    if (windows > 0 && this.maxLeasePs !== null) {
      windows = Math.max(1, Math.min(windows, Math.floor(this.maxLeasePs / windowPs)));
    }
    let endPs = startPs + windows * windowPs;
    if (runEnd !== null && endPs > runEnd) endPs = runEnd;
    const final = windows === 0 || endPs === runEnd;
    const faults: F[] = [];
    while (this.pendingFaults.length > 0 && this.pendingFaults[0]!.atPs < endPs) faults.push(this.pendingFaults.shift()!);
    for (const member of this.joiningNext) this.alive.add(member);
    const grant: Grant<F> = {
      lease: (this.current?.lease ?? 0) + 1,
      startPs,
      windowPs,
      windows,
      endPs: windows === 0 ? startPs : endPs,
      final,
      faults,
      linksDown: [...this.linksDownNext].sort(),
      linksUp: [...this.linksUpNext].sort(),
      membersLost: [...this.lostNext].sort(),
      membersJoined: [...this.joiningNext].sort(),
      losses: this.lossesNext.splice(0),
    };
    this.linksDownNext.clear();
    this.linksUpNext.clear();
    this.lostNext.clear();
    this.joiningNext.clear();
    this.current = grant;
    this.windowsGranted += windows;
    return { type: 'grant', grant };
  }

  private linksOf(member: string): readonly string[] {
    return this.config.linksOfMember?.get(member) ?? [];
  }

  /** Whether every member with an end on `link` is alive or joining. */
  private endsPresent(link: string): boolean {
    for (const m of this.everMember) {
      if (this.alive.has(m) || this.joiningNext.has(m)) continue;
      if (this.linksOf(m).includes(link)) return false;
    }
    return true;
  }

  private forgetDirection(direction: string): void {
    this.settled.delete(direction);
    this.losses.delete(direction);
  }

  private declareDown(link: string): void {
    if (this.declaredDown.has(link)) return;
    this.declaredDown.add(link);
    this.linksDownNext.add(link);
  }

  /**
   * The two ends of a failed direction report what they sent and accepted, in any order; the
   * difference was lost in transit and the sender counts it as `link_down` at the next lease.
   */
  private noteCounts(counts: LinkCounts): void {
    if (this.settled.has(counts.link)) return;
    const pending = this.losses.get(counts.link) ?? {};
    if (counts.side === 'sender') pending.sent = counts.frames;
    else pending.accepted = counts.frames;
    if (pending.sent !== undefined && pending.accepted !== undefined) {
      const frames = pending.sent - pending.accepted;
      if (frames < 0) throw new Error(`coordinator: ${counts.link} accepted ${pending.accepted} frames but sent only ${pending.sent}`);
      if (frames > 0) this.lossesNext.push({ link: counts.link, frames });
      this.losses.delete(counts.link);
      this.settled.add(counts.link);
    } else {
      this.losses.set(counts.link, pending);
    }
  }
}

/** The two directions `a>b` and `b>a` of a link named `a--b` (names as the runtime gives them). */
function directionsOf(link: string): string[] {
  const [a, b] = link.split('--');
  return b === undefined ? [] : [`${a}>${b}`, `${b}>${a}`];
}
