/**
 * When the host's application runs (issue 13): what the NIC tells it (a completion, a receive) is
 * handed over after the event that caused it, never in the middle of one, through a timer at the
 * same instant: the app may post work, and the NIC's state must be whole when it does. The app
 * also arms that timer itself, to wake up later (`rdma.sleep`).
 */
import type { AppEvents, AppReceive, Completion } from '@rocelab/rnic';
import { armTimer, type NodeContext, type TimerTable } from '@rocelab/sim';

export class AppScheduler<A extends AppEvents = AppEvents> {
  private app: A | null = null;
  private readonly pending: Array<() => void> = [];
  private readonly timer: number;
  /** When the app asked to wake up; null: it did not. */
  private wakePs: number | null = null;

  constructor(
    private readonly ctx: NodeContext,
    timers: TimerTable,
    /** The NIC may have work to send once the app ran. */
    private readonly kick: () => void,
  ) {
    this.timer = timers.register((nowPs) => this.run(nowPs));
  }

  /** The application running on this host: it hears of completions, receives and its timer through `events`. */
  attach(app: A): void {
    this.app = app;
  }

  /** The application attached (null: the host runs the built-in traffic only). */
  get attached(): A | null {
    return this.app;
  }

  /** Arm the application's own timer (null: disarm). */
  wakeAt(atPs: number | null): void {
    this.wakePs = atPs;
    if (this.pending.length === 0) armTimer(this.ctx, this.timer, atPs);
  }

  completion(qpn: number, c: Completion): void {
    this.toApp(() => this.app?.onCompletion(qpn, c.wrId, c));
  }

  receive(qpn: number, r: AppReceive): void {
    this.toApp(() => this.app?.onReceive(qpn, r));
  }

  /** Registered memory changed: only an application that listens for it (`onMemory`) is told, so no other gets an event more. */
  memory(): void {
    const app = this.app;
    if (app?.onMemory !== undefined) this.toApp(() => app.onMemory!());
  }

  private toApp(event: () => void): void {
    if (this.app === null) return;
    if (this.pending.length === 0) this.ctx.setTimer(this.timer, this.ctx.nowPs);
    this.pending.push(event);
  }

  private run(nowPs: number): void {
    const events = this.pending.splice(0);
    for (const event of events) event();
    if (this.wakePs !== null && this.wakePs <= nowPs) this.wakePs = null;
    this.app?.run(nowPs);
    // Events the app's own work raised meanwhile, or its next wake-up.
    if (this.pending.length > 0) this.ctx.setTimer(this.timer, nowPs);
    else armTimer(this.ctx, this.timer, this.wakePs);
    this.kick();
  }
}
