/** Your own RDMA code on the emulated fabric (issue 13): the API apps are written against, their bundler, and the sandbox they run in (issue 22). */
export type * from './api.js';
export * from './bundle.js';
export { Machine, MAX_STEPS, STACK_BYTES, type MachineError } from './machine.js';
export { FUEL_EXPORT, meter } from './wasm-meter.js';
export * from './sandbox.js';
