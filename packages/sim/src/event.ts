/**
 * A model event and its total order (DESIGN §3): `(timePs, class, origin node index, origin
 * sequence)`. At equal times the class decides, so a pause that arrives at the instant a
 * frame could start wins and the frame waits. Origin index and sequence make the order
 * independent of which process hosts which node and of socket arrival order.
 */
import type { Frame } from '@rocelab/wire';

export const EventClass = {
  /** Fault or configuration change. */
  fault: 1,
  /** Link up/down. */
  linkState: 2,
  pfcArrival: 3,
  frameArrival: 4,
  /** Serialization done, or a paused transmitter's pause expired. */
  transmitter: 5,
  /** Named protocol timers (watchdog poll, DCQCN, RTO, workload). */
  timer: 6,
} as const;
export type EventClass = (typeof EventClass)[keyof typeof EventClass];

/** `kind` values of transmitter events. */
export const TxEvent = { done: 0, pauseExpired: 1 } as const;

export interface SimEvent {
  timePs: number;
  cls: EventClass;
  /** Index of the node that scheduled the event; faults use the node count (the controller). */
  origin: number;
  /** The origin's running count of scheduled events. */
  seq: number;
  /** Index of the node the event happens at. */
  target: number;
  /** Class-specific discriminator: timer id, transmitter event, fault kind, link up (1) / down (0). */
  kind: number;
  /** Port at the target, -1 when none. */
  port: number;
  /** Class-specific number: timer generation, fcsBad (1) for arrivals. */
  arg: number;
  frame: Frame | null;
  /** Class-specific payload (faults). */
  data: unknown;
}

/** Whether an event of key `(timePs, cls, origin, seq)` comes before `e` in that order. */
export function keyBefore(timePs: number, cls: EventClass, origin: number, seq: number, e: SimEvent): boolean {
  if (timePs !== e.timePs) return timePs < e.timePs;
  if (cls !== e.cls) return cls < e.cls;
  if (origin !== e.origin) return origin < e.origin;
  return seq < e.seq;
}

export function compareEvents(a: SimEvent, b: SimEvent): number {
  return a.timePs - b.timePs || a.cls - b.cls || a.origin - b.origin || a.seq - b.seq;
}
