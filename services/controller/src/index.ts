/**
 * @rocelab/controller — the time coordinator service: registers members, hands out the
 * directory, grants leases (paced by the dilation), and assembles the run's result.
 */
export * from './controller.js';
export * from './metrics.js';
export { runControllerMain } from './controller-main.js';
export * from './pacing-view.js';
export * from './pace.js';
export type { AutoPaceView } from '@rocelab/sync';
