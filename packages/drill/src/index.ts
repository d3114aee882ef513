/**
 * @rocelab/drill — fault-injection drills as pure functions: the drill file (YAML + schema,
 * variants, expectations), the expectations evaluated over a run's result and trace tables, the
 * deadlock detector, and the report (markdown, JSON, HTML, Vega-Lite SVG plots). The CLI runs
 * the pods and does the file I/O.
 */
export * from './report-model.js';
export { acrossVariantData, acrossVariantPlots, drillPlots, fileStems, variantPlots, type AcrossVariantData, type DrillPlotInput, type RenderedPlot, type VariantPlotInput } from './plots.js';
export { reportMarkdown } from './report-md.js';
export { incidentText, variantFacts } from './report-text.js';
export { reportHtml } from './report-html.js';
export { TIMELINE_HEADER, timelineRow } from './report-text.js';
export { variantIncident, podCables, TIMELINE_MAX_ROWS, type VariantIncident } from './variant-incident.js';
export { linkStates, STUCK_US, type LinkStatesInput } from './link-states.js';
export { topologySvg, LINK_COLOURS, type PictureNode } from './topology-svg.js';
export { findDeadlock, type Cable, type Deadlock, type DeadlockInput, type PortRef, type QueueRef, type QueueSample } from './deadlock.js';
export * from './drill-schema.js';
export * from './drill-file.js';
export * from './expectations.js';
export * from './metrics.js';
export * from './incident.js';
