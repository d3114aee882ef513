/**
 * @rocelab/sim — the deterministic virtual-time engine (DESIGN §3, §5).
 *
 * Integer-picosecond clock, an event queue with a total order that does not depend on which
 * process hosts which node, seeded random streams per (seed, node, purpose), a running trace
 * hash of model events, and the link model (serialization, latency, PFC gating, impairments).
 * Pure: no wall clock, timers, sockets, files or logging.
 */
export * from './time.js';
export * from './drop-reason.js';
export * from './event.js';
export * from './event-queue.js';
export * from './rng.js';
export * from './trace-hash.js';
export * from './stats.js';
export * from './histogram.js';
export * from './impairments.js';
export * from './link.js';
export * from './headroom.js';
export * from './node.js';
export * from './engine.js';
export * from './node-life.js';
export * from './timer-table.js';
export * from './units.js';
export * from './profile-names.js';
export * from './fields.js';
export * from './credit-flow.js';
export * from './credit-link.js';
