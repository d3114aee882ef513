/**
 * A model's named timers as a table (STYLE §2: protocol timers are a small named table of
 * deadlines). Each owner registers the timers it needs and gets their ids, and a fired timer is
 * handed to the function it was registered with: nothing decodes an id by arithmetic.
 *
 * Ids are given in registration order, from 0: the trace hash folds a timer event's id, so a
 * model registers its timers in the same order in every run (its owners in a fixed order, each
 * owner's timers in a fixed order).
 */
import type { NodeContext } from './node.js';

export type TimerHandler = (nowPs: number) => void;

export class TimerTable {
  private readonly handlers: Array<TimerHandler | null> = [];

  /** One timer; its id. */
  register(onFire: TimerHandler): number {
    return this.handlers.push(onFire) - 1;
  }

  /** `count` timers handled alike, e.g. one per queue pair; the first one's id (the others follow). */
  registerEach(count: number, onFire: (nowPs: number, index: number) => void): number {
    const first = this.handlers.length;
    for (let i = 0; i < count; i++) this.handlers.push((nowPs) => onFire(nowPs, i));
    return first;
  }

  /** Ids that stay unused (a model whose ids were fixed before may have gaps: the trace hash keeps them). */
  skip(count: number): void {
    for (let i = 0; i < count; i++) this.handlers.push(null);
  }

  /** The timer `id` fired (the engine's `onTimer`). */
  fire(nowPs: number, id: number): void {
    const handler = this.handlers[id];
    if (handler == null) throw new Error(`timer ${id} fired, but no timer has that id (${this.handlers.length} registered)`);
    handler(nowPs);
  }

  get size(): number {
    return this.handlers.length;
  }
}

/** Keep `timer` on `deadlinePs` (null: disarmed), at the earliest now; nothing changes when it already is there. */
export function armTimer(ctx: NodeContext, timer: number, deadlinePs: number | null): void {
  if (deadlinePs === ctx.timerDeadlinePs(timer)) return;
  if (deadlinePs === null) ctx.cancelTimer(timer);
  else ctx.setTimer(timer, Math.max(deadlinePs, ctx.nowPs));
}
