/**
 * @rocelab/cli — the `rocelab` command's pieces, importable by tests and benchmarks.
 */
export * from './pod-processes.js';
export * from './run.js';
