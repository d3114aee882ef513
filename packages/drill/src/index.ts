/**
 * @rocelab/drill — fault-injection drills as pure functions: the drill file (YAML + schema,
 * variants, expectations), the expectations evaluated over a run's result and trace tables, the
 * deadlock detector, and the report (markdown, JSON, HTML, Vega-Lite SVG plots). The CLI runs
 * the pods and does the file I/O.
 */
export * from './report-model.js';
export { drillPlots, type DrillPlotInput, type RenderedPlot } from './plots.js';
export { reportMarkdown } from './report-md.js';
export { reportHtml } from './report-html.js';
