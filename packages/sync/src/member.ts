/**
 * The member side of the conservative window protocol (DESIGN §3), as a pure state machine.
 * A member is a process hosting one or more nodes; its channels are what it exchanges batches
 * with each window: in the runtime, one per neighbouring member (a pair: one connection, one
 * message per window carrying every link between the two; `runtime/src/member-links.ts`).
 *
 * Inside a lease the member runs in neighbour lockstep: run window k, ship exactly one batch
 * per live channel, wait for every live channel's batch of window k, go on. A neighbour can be
 * at most one window ahead (it needs our batch of k to run k + 1), so a batch for any window
 * other than the current or the next one means the channel misbehaves: it is closed, and the
 * member stops waiting for it. At the lease end the member reports and waits for a grant.
 */
import { windowEndPs, type Grant, type TimedFault } from './types.js';

export type MemberState = 'awaitingGrant' | 'running' | 'awaitingBatches' | 'finished';

export type MemberAction =
  /**
   * Run the engine over [`fromPs`, `untilPs`) (the window; nothing is due before `fromPs`), then
   * ship one batch per live channel and call `windowShipped`.
   */
  | { type: 'run'; lease: number; window: number; fromPs: number; untilPs: number }
  /** Report the lease to the controller (with final stats when `final`). */
  | { type: 'report'; lease: number; final: boolean }
  /** Close a misbehaving channel with this reason. */
  | { type: 'close'; channel: string; reason: string };

export class MemberSync {
  private state: MemberState = 'awaitingGrant';
  private grant: Grant<TimedFault> | null = null;
  private window = 0;
  private readonly live: Set<string>;
  /** Channels reconnected by a rejoining neighbour: live from the grant that brings them up. */
  private readonly joining = new Set<string>();
  /** Channels whose batch for a window arrived, keyed `lease/window`; at most two keys are live. */
  private readonly arrived = new Map<string, Set<string>>();
  private lastLease = 0;
  private rejoining: boolean;

  /**
   * `rejoin`: this member is a restarted process joining a running pod; its first grant may have
   * any lease number, and its channels are live from it on.
   */
  constructor(
    private readonly known: readonly string[],
    options: { rejoin?: boolean } = {},
  ) {
    this.live = new Set(known);
    this.rejoining = options.rejoin === true;
  }

  get phase(): MemberState {
    return this.state;
  }

  get liveChannels(): string[] {
    return [...this.live].sort();
  }

  /** Live channels whose batch for the awaited window has not arrived (empty unless awaiting batches). */
  missing(): string[] {
    if (this.state !== 'awaitingBatches') return [];
    const arrived = this.arrived.get(`${this.grant!.lease}/${this.window}`);
    return this.liveChannels.filter((channel) => !arrived?.has(channel));
  }

  /** The window being run or awaited: `{lease, window}`, window 0 between leases. */
  get position(): { lease: number; window: number } {
    return { lease: this.grant?.lease ?? 0, window: this.window };
  }

  /** `up`: the channels the grant brings back up (by default its `linksUp`, when channels are links). */
  onGrant(grant: Grant<TimedFault>, up: readonly string[] = grant.linksUp): MemberAction[] {
    if (this.state !== 'awaitingGrant') throw new Error(`member: grant ${grant.lease} in state ${this.state}`);
    if (this.rejoining) {
      this.lastLease = grant.lease - 1;
      this.rejoining = false;
    }
    if (grant.lease !== this.lastLease + 1) throw new Error(`member: grant ${grant.lease} after lease ${this.lastLease}`);
    for (const channel of up) {
      if (!this.joining.delete(channel)) continue;
      this.live.add(channel);
    }
    this.grant = grant;
    this.lastLease = grant.lease;
    if (grant.windows === 0) return this.endLease();
    this.window = 1;
    this.state = 'running';
    return [this.runAction()];
  }

  /** The engine ran the current window and its batches are on their way. */
  windowShipped(): MemberAction[] {
    if (this.state !== 'running') throw new Error(`member: windowShipped in state ${this.state}`);
    this.state = 'awaitingBatches';
    return this.advanceIfComplete();
  }

  /** A neighbour's batch for (`lease`, `window`) arrived on `channel`. */
  onBatch(channel: string, lease: number, window: number): MemberAction[] {
    if (!this.live.has(channel) && !this.joining.has(channel)) return [];
    const key = `${lease}/${window}`;
    const [current, next] = this.acceptable();
    if (key !== current && key !== next) {
      return this.fail(channel, `out-of-order batch for lease ${lease} window ${window}; expected ${[current, next].filter(Boolean).join(' or ')}`);
    }
    const set = this.arrived.get(key) ?? new Set<string>();
    if (set.has(channel)) return this.fail(channel, `second batch for lease ${lease} window ${window}`);
    set.add(channel);
    this.arrived.set(key, set);
    return this.state === 'awaitingBatches' ? this.advanceIfComplete() : [];
  }

  /** A channel failed or was closed: stop waiting for it from now on. */
  onChannelFailed(channel: string): MemberAction[] {
    this.joining.delete(channel);
    if (!this.live.delete(channel)) return [];
    return this.state === 'awaitingBatches' ? this.advanceIfComplete() : [];
  }

  /**
   * A failed channel was reconnected by a neighbour that rejoins the pod: its batches are taken
   * from now on (it may run the joining lease's first window before our grant arrives), and it
   * is waited for from the grant that lists it in `linksUp`.
   */
  onChannelReconnected(channel: string): void {
    if (!this.known.includes(channel)) throw new Error(`member: ${channel} is not one of this member's channels`);
    if (this.live.has(channel)) throw new Error(`member: ${channel} reconnected while live`);
    this.joining.add(channel);
  }

  private fail(channel: string, reason: string): MemberAction[] {
    const actions: MemberAction[] = [{ type: 'close', channel, reason }];
    return actions.concat(this.onChannelFailed(channel));
  }

  /** Keys of the windows a neighbour may legitimately send now: the current and, once ours is shipped, the next. */
  private acceptable(): [string, string | null] {
    const grant = this.grant;
    if (this.state === 'awaitingGrant' || grant === null) return [`${this.lastLease + 1}/1`, null];
    const current = `${grant.lease}/${this.window}`;
    if (this.state === 'running') return [current, null];
    const next = this.window < grant.windows ? `${grant.lease}/${this.window + 1}` : `${grant.lease + 1}/1`;
    return [current, next];
  }

  private advanceIfComplete(): MemberAction[] {
    const grant = this.grant!;
    const key = `${grant.lease}/${this.window}`;
    const arrived = this.arrived.get(key);
    for (const channel of this.live) if (!arrived?.has(channel)) return [];
    this.arrived.delete(key);
    if (this.window < grant.windows) {
      this.window++;
      this.state = 'running';
      return [this.runAction()];
    }
    return this.endLease();
  }

  private endLease(): MemberAction[] {
    const grant = this.grant!;
    this.window = 0;
    this.state = grant.final ? 'finished' : 'awaitingGrant';
    return [{ type: 'report', lease: grant.lease, final: grant.final }];
  }

  private runAction(): MemberAction {
    const grant = this.grant!;
    return { type: 'run', lease: grant.lease, window: this.window, fromPs: windowEndPs(grant, this.window - 1), untilPs: windowEndPs(grant, this.window) };
  }
}
