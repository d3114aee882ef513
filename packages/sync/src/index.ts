/**
 * @rocelab/sync — the conservative window protocol of DESIGN §3 as two pure state machines:
 * the coordinator (controller side: leases, idle jumps, faults, links declared down) and the
 * member (process side: neighbour lockstep inside a lease). No sockets, no timers: the
 * runtime and the controller service carry their messages and pace them.
 */
export * from './types.js';
export * from './coordinator.js';
export * from './member.js';
export * from './pacing.js';
export * from './lease-size.js';
export * from './auto-pace.js';
