/**
 * @rocelab/runtime — where the pure models meet processes and sockets: which model runs for
 * which node, the in-process runner, authenticated WebSocket connections, the member process
 * (links + window protocol) and the run's result. Services are thin wrappers around it.
 */
export * from './auth.js';
export * from './connection.js';
export * from './debug.js';
export * from './fault-wire.js';
export * from './fault-book.js';
export * from './faults.js';
export * from './inproc.js';
export * from './threads.js';
export { threadMain, type ThreadOutcome, type ThreadPlan } from './thread-member.js';
export { ThreadRing, RingFull, type RingMemory } from './thread-ring.js';
export * from './member.js';
export * from './member-links.js';
export * from './member-loss.js';
export * from './liveness.js';
export * from './report-wire.js';
export * from './models.js';
export * from './pod-context.js';
export * from './window.js';
export * from './pod-model.js';
export * from './memory.js';
export * from './names.js';
export * from './node-metrics.js';
export * from './node-report.js';
export * from './result.js';
export * from './recording.js';
export * from './pcap-recorder.js';
export * from './trace-recorder.js';
export * from './ideal-paths.js';
export type { NodeReport } from '@rocelab/results';
export * from './version.js';
export * from './member-main.js';
export * from './pod-token.js';
export * from './http-limits.js';
export * from './refusal-log.js';
export * from './refusal-reporter.js';
export * from './program-sockets.js';
export { programSandbox, sandboxRefusal, UNSANDBOXED_ENV, UNSANDBOXED_WARNING, type Sandbox } from '@rocelab/native';
