/**
 * @rocelab/results — what a run shows, as pure functions over what the nodes reported: the run
 * summary (pauses, drops, queues, transport counters, probe percentiles), ideal flow completion
 * times, the rows of the trace CSVs, and `rocelab compare` against a reference directory.
 * No files, sockets or clocks: the runtime and the CLI do the I/O.
 */
export * from './percentile.js';
