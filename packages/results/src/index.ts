/**
 * @rocelab/results — what a run shows, as pure functions over what the nodes reported: the run
 * summary (pauses, drops, queues, transport counters, probe percentiles), ideal flow completion
 * times, the rows of the trace CSVs, and `rocelab compare` against a reference directory.
 * No files, sockets or clocks: the runtime and the CLI do the I/O.
 *
 * ```ts
 * const run = splitRuns(parseTraceDir(runFiles)).values().next().value!;
 * const reference = splitRuns(parseTraceDir(refFiles));
 * const c = compareTraces(run, reference, { tolerances: parseTolerances('fct=10%,pauses=25%') });
 * process.stdout.write(formatComparison(c, { all: false }));
 * ```
 */
export * from './percentile.js';
export * from './trace-columns.js';
export { ResultsError, type ResultsErrorCode } from './errors.js';
export { FieldReader, parseCsv, requireColumns, type CsvRow, type CsvTable } from './csv.js';
export { parseTraceDir, parseTraceFile, splitRuns, QP_EVENT_KINDS, type PacketEventRow, type QpEventKind, type QpEventRow, type EventRow, type FctRow, type PfcRow, type ProbeRow, type QueueRow, type RateRow, type TraceDir, type TraceRows, type TraceTables, type TraceText } from './trace-tables.js';
export { pauseIntervals, pauseSummary, type PauseInterval, type PfcEvent } from './pause-intervals.js';
export { incidentTimeline, type TimelineCable, type TimelineEntry, type TimelineEvent, type TimelineInput } from './incident-timeline.js';
export { DEFAULT_TOLERANCE, TOLERANCE_FORM, TOLERANCE_KEYS, defaultTolerances, formatTolerances, parseTolerances, type ToleranceKey, type Tolerances } from './tolerance.js';
export { defaultWindow, measure, naturalCompare, type Measurement, type Unit, type Window } from './measurements.js';
export { compareTraces, evaluate, formatNumber, formatValue, type CompareOptions, type Comparison, type ComparisonRow } from './compare.js';
export { MAX_TABLE_ROWS, comparisonJson, formatComparison } from './compare-report.js';
export * from './node-report.js';
export { outputTail, programEnding, programFailed, programName } from './programs.js';
export * from './summary.js';
export * from './flows.js';
export * from './probes.js';
export * from './trace-format.js';
export * from './ideal-fct.js';
export * from './slowdown-buckets.js';
export { mergeNodeReports } from './merge-reports.js';
export { hostResultsSchema, nodeReportSchema, type HostResults } from './payload-schemas.js';
