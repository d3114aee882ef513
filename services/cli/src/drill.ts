/**
 * `rocelab drill run FILE [--mode …] [--variant V] [--out DIR] [--pcap [PORTS]] [--json]` and `rocelab drill list`.
 *
 * A drill is loaded and checked whole before anything runs (exit 2 with file, path and
 * expectation). Each variant is written out as the topology file it is (`OUT/<variant>/pod.yaml`)
 * and run like `rocelab run` would, tracing into `OUT/<variant>/trace` (and with `--pcap`, capturing
 * into `OUT/<variant>/pcap`); then the expectations are
 * evaluated over the runs and the report written: report.json, report.md, report.html and the
 * plots. Exit 0 only when every expectation holds.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import {
  acrossVariantData,
  acrossVariantPlots,
  audit,
  DrillError,
  drillName,
  evaluateVariant,
  fileStems,
  incidentFigures,
  incidentText,
  comparedVariants,
  isAcrossVariants,
  loadDrill,
  ratioOperand,
  ratioOutcome,
  reportHtml,
  reportMarkdown,
  TIMELINE_HEADER,
  timelineRow,
  topologySvg,
  variantIncident,
  variantPlots,
  type AcrossVariantData,
  type Drill,
  type DrillReport,
  type DrillVariant,
  type Expectation,
  type ExpectationOutcome,
  type FaultOutcome,
  type PlotRef,
  type RatioOperand,
  type VariantData,
  type VariantOutcome,
} from '@rocelab/drill';
import { parseTraceFile, programEnding, programName, TRACE_FILE_NAMES, type TraceFileName, type TraceTables } from '@rocelab/results';
import { APP_FAILED_EXIT, DEFAULT_PCAP_SNAPLEN, DEFAULT_TRACE_SETTINGS, failedApps, failedPrograms, podContext, prepareRunFiles, renumberFrom, RunFilesError, type FaultLogEntry, type RunResult } from '@rocelab/runtime';
import { declareAppRegions, InputFileError, loadTopologyFile, MAX_TRACE_FILE_BYTES, readInputFile, TopologyError } from '@rocelab/topology';
import { DockerRunError } from '@rocelab/deploy';
import { appliedEndPs, appliedFaults } from './drill-draft.js';
import { checkPcapPorts, executeRun, readFaultLog, RunOptionError } from './run.js';
import { table } from './result-text.js';

/** Built-in drills: `drills/` at the repository root. */
export const BUILTIN_DRILLS = fileURLToPath(new URL('../../../drills/', import.meta.url));

export interface DrillRunOptions {
  mode: 'inproc' | 'procs' | 'docker';
  workers: number | null;
  /** inproc: K threads of one process; null: `defaultThreads`. */
  threads?: number | null;
  image: string;
  variant: string | null;
  out: string | null;
  json: boolean;
  /** `--faults LOG`: a session's live faults replayed into every variant (checked against each variant's pod and the drill's seed). */
  faults?: string | null;
  /** `--pcap [PORTS]`: capture each variant's ports (null: every host port) into OUT/<variant>/pcap; absent or null: no capture. */
  pcap?: { ports: string[] | null } | null;
}

export async function drillRunCommand(file: string, options: DrillRunOptions): Promise<number> {
  let drill: Drill;
  try {
    drill = loadDrill(readInputFile(file, 'drill file'), file, { readText: (path) => readInputFile(path, 'topology file') });
  } catch (err) {
    if (err instanceof DrillError) return refuse(err.message);
    if (err instanceof InputFileError) return refuse(`${file}: <root>: expected ${err.expected}, got ${err.actual}`);
    throw err;
  }
  if (options.variant !== null && !drill.variants.some((v) => v.name === options.variant)) {
    return refuse(`--variant ${options.variant}: expected a variant of ${file} (${drill.variants.map((v) => v.name).join(', ')})`);
  }
  const out = resolve(options.out ?? join('out', 'drills', drill.name));
  const replays = new Map<string, FaultLogEntry[]>();
  for (const variant of drill.variants.filter((v) => options.faults != null && (options.variant === null || v.name === options.variant))) {
    try {
      // Numbered after the variant's own faults, so no two faults share the numbers their events are ordered by.
      replays.set(variant.name, renumberFrom(readFaultLog(options.faults!, variant.pod, drill.seed, (logSeed) => `seed: ${logSeed} in the drill replays it`), variant.pod.faults.length));
    } catch (err) {
      if (err instanceof RunOptionError) return refuse(`${err.message} (variant ${variant.name})`);
      throw err;
    }
  }
  // Apps declare their regions before anything runs, so a bad declaration refuses the drill whole.
  for (const variant of drill.variants.filter((v) => options.variant === null || v.name === options.variant)) {
    try {
      checkPcapPorts(variant.pod, options.pcap?.ports ?? null, '--pcap');
      await declareAppRegions(variant.pod);
    } catch (err) {
      if (err instanceof TopologyError || err instanceof RunOptionError) return refuse(`${file} (variant ${variant.name}): ${err.message}`);
      throw err;
    }
  }
  let report: DrillReport;
  try {
    report = await runDrill(drill, out, { ...options, replays });
  } catch (err) {
    if (err instanceof RunFilesError || err instanceof DockerRunError) return refuse(err.message);
    throw err;
  }
  process.stdout.write(options.json ? `${JSON.stringify(report)}\n` : reportText(report, out));
  if (!report.pass) return 1;
  // An app or a program that failed fails the drill too, whatever the expectations say: its own error is a result nobody checked.
  const failed = report.variants.flatMap((v) => v.run.failedApps.map((error) => `rocelab drill (variant ${v.name}): ${error}\n`));
  const programs = report.variants.flatMap((v) => (v.run.failedPrograms ?? []).map((text) => `rocelab drill (variant ${v.name}): ${text}\n`));
  if (failed.length === 0 && programs.length === 0) return 0;
  const counted = [failed.length > 0 ? `${failed.length} app${failed.length === 1 ? '' : 's'} failed` : '', programs.length > 0 ? `${programs.length} program${programs.length === 1 ? '' : 's'} failed or exited non-zero` : ''].filter(Boolean).join(' and ');
  process.stderr.write(`${failed.join('')}${programs.join('')}rocelab drill: ${counted}, so the drill exits ${APP_FAILED_EXIT}\n`);
  return APP_FAILED_EXIT;
}

/** Told each variant's data once its outputs are written and nothing of the runner keeps it (tests watch that it goes); awaited. */
export type VariantObserver = (data: VariantData, result: RunResult) => void | Promise<void>;

/**
 * Runs the drill's variants one after the other and writes the report into `out`. Memory stays
 * flat across variants: as each variant ends, its expectations are evaluated, its plots
 * rendered and written, and of its run only the report's figures are kept, with the few numbers
 * the expectations and plots across variants need (ratio operands, FCT and probe CDF values,
 * held time per node) — not its result, its node reports or its trace tables.
 */
export async function runDrill(drill: Drill, out: string, options: DrillRunOptions & { replays?: ReadonlyMap<string, FaultLogEntry[]> }, observe?: VariantObserver): Promise<DrillReport> {
  const variants = drill.variants.filter((v) => options.variant === null || v.name === options.variant);
  // Expectations about variants not run (--variant) are left out.
  const ran = new Set(variants.map((v) => v.name));
  const expectations = drill.expectations.filter((e) => (isAcrossVariants(e) ? comparedVariants(e).every((name) => ran.has(name)) : e.variant === null || ran.has(e.variant)));
  const across = expectations.filter(isAcrossVariants);
  const operands = new Map<Expectation, Map<string, RatioOperand>>(across.map((e) => [e, new Map()]));
  const stems = fileStems(variants.map((v) => v.name));
  const reported: VariantOutcome[] = [];
  const plots: PlotRef[] = [];
  const kept: AcrossVariantData[] = [];
  for (const variant of variants) {
    if (!options.json) process.stderr.write(`drill ${drill.name}: variant ${variant.name} (${options.mode}${options.workers ? ` ×${options.workers}` : options.threads ? `, ${options.threads} threads` : ''})\n`);
    const { result, data } = await runVariant(drill, variant, out, options, options.replays?.get(variant.name) ?? []);
    const outcomes = evaluateVariant(expectations, data);
    for (const e of across) if (comparedVariants(e).includes(variant.name)) operands.get(e)!.set(variant.name, ratioOperand(e, data));
    const entry = { ...variantOutcome(variant, result, outcomes, options.replays?.get(variant.name) ?? [], data.pcaps), audit: audit(data), incidents: incidentFigures(data.pod.faults, data.tables, data.traceOriginPs) };
    entry.pass = entry.pass && entry.audit.pass;
    // Who paused whom, what happened on each link, and the files to open (issue 24).
    const incident = variantIncident(data, result.nodes);
    Object.assign(entry, { timeline: incident.timeline, timelineOmitted: incident.timelineOmitted, links: incident.links, files: variantFiles(out, variant.name) });
    reported.push(entry);
    const topology = `topology-${stems.get(variant.name)!}.svg`;
    writeFileSync(join(out, topology), await topologySvg(`${variant.name}: the pod, links coloured by what happened on them`, data.pod.nodes.map((n) => ({ name: n.name, role: n.role })), incident.links));
    plots.push({ file: topology, title: `${variant.name}: topology (stuck, dropping and paused links coloured)`, variant: variant.name });
    const traceOriginUs = data.traceOriginPs / 1e6;
    for (const p of await variantPlots({ variant: entry, stem: stems.get(variant.name)!, tables: data.tables, endUs: ((drill.plotUntilPs ?? drill.durationPs) - data.traceOriginPs) / 1e6, traceOriginUs })) {
      writeFileSync(join(out, p.ref.file), p.svg);
      plots.push(p.ref);
    }
    kept.push(acrossVariantData(variant.name, data.tables, result.nodes));
    await observe?.(data, result);
  }
  const acrossOutcomes = across.map((e) => {
    const [a, b] = comparedVariants(e);
    return ratioOutcome(e, operands.get(e)!.get(a)!, operands.get(e)!.get(b)!);
  });
  const acrossPlots = await acrossVariantPlots(kept, undefined, { slowdownBySize: drill.plotSlowdown });
  for (const p of acrossPlots) writeFileSync(join(out, p.ref.file), p.svg);
  const report: DrillReport = {
    drill: drill.name,
    title: drill.title,
    description: drill.description,
    source: drill.source,
    file: drill.file,
    mode: options.mode === 'inproc' && options.workers !== null ? 'workers' : options.mode === 'inproc' && (options.threads ?? 1) > 1 ? 'threads' : options.mode,
    pass: reported.every((v) => v.pass) && acrossOutcomes.every((o) => o.pass),
    variants: reported,
    acrossVariants: acrossOutcomes,
    plots: [...plots, ...acrossPlots.map((p) => p.ref)],
  };
  writeFileSync(join(out, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(out, 'report.md'), reportMarkdown(report));
  // The page holds every plot inline: read back from the files written as each variant ended.
  const rendered = [...plots.map((ref) => ({ ref, svg: readInputFile(join(out, ref.file), 'plot', MAX_TRACE_FILE_BYTES) })), ...acrossPlots];
  writeFileSync(join(out, 'report.html'), reportHtml(report, rendered));
  return report;
}

/** The report's account of one variant: its run's headline figures, its faults, its expectations (its audit and incident figures are added by the caller). */
function variantOutcome(variant: DrillVariant, result: RunResult, outcomes: ExpectationOutcome[], replayed: readonly FaultLogEntry[], pcaps: string[] | null): Omit<VariantOutcome, 'audit' | 'incidents'> {
  return {
    name: variant.name,
    description: variant.description,
    pass: outcomes.every((o) => o.pass),
    run: {
      mode: result.mode,
      seed: result.seed,
      profile: result.profile,
      timing: result.timing,
      traceHash: result.traceHash,
      virtualNs: result.virtualNs,
      wallMs: result.wallMs,
      conservation: result.conservation,
      packets: result.packets,
      droppedByReason: result.droppedByReason,
      flows: { total: result.flowTotals.total, completed: result.flowTotals.completed, pending: result.flowTotals.pending, stalled: result.flowTotals.stalled, failed: result.flowTotals.failed },
      pauseFramesSent: result.summary.portTotals.pauseFramesSent,
      pausedPorts: result.summary.portTotals.pausedPorts,
      probes: { sent: result.probes.sent, lost: result.probes.lost, p50Ns: result.probes.p50Ns, p99Ns: result.probes.p99Ns },
      failedApps: failedApps(result).map((a) => a.error ?? `app ${a.module} on ${a.node} failed`),
      failedPrograms: failedPrograms(result).map((p) => `${programName(p)} ${programEnding(p)}`),
    },
    faults: [...faultsOf(variant), ...replayedFaults(replayed)],
    expectations: outcomes,
    traceDir: `${variant.name}/trace`,
    ...(pcaps === null ? {} : { pcaps }),
  };
}

function refuse(message: string): number {
  process.stderr.write(`rocelab drill: ${message}\n`);
  return 2;
}

/** One variant: its topology file, a traced run, its tables. */
async function runVariant(drill: Drill, variant: DrillVariant, out: string, options: DrillRunOptions, replayFaults: readonly FaultLogEntry[]): Promise<{ result: RunResult; data: VariantData & { pcaps: string[] | null } }> {
  const dir = join(out, variant.name);
  mkdirSync(dir, { recursive: true });
  const podFile = join(dir, 'pod.yaml');
  writeFileSync(podFile, podYaml(drill, variant, dir));
  const pod = loadTopologyFile(podFile);
  await declareAppRegions(pod);
  const recording = {
    trace: { dir: join(dir, 'trace'), ...DEFAULT_TRACE_SETTINGS, ...drill.trace },
    pcap: options.pcap == null ? null : { dir: join(dir, 'pcap'), ports: options.pcap.ports, snaplen: DEFAULT_PCAP_SNAPLEN },
  };
  prepareRunFiles(recording, options.mode === 'docker');
  const result = await executeRun(pod, podFile, {
    seed: drill.seed,
    durationPs: drill.durationPs,
    mode: options.mode,
    workers: options.workers,
    threads: options.threads ?? null,
    image: options.image,
    dilation: 0,
    json: options.json,
    debugUncountedLoss: null,
    recording,
    detail: true,
    replayFaults,
  });
  writeFileSync(join(dir, 'result.json'), `${JSON.stringify(result)}\n`);
  // The captures, relative to the report (a port that saw no frame still has its file, with the pcap header alone).
  const pcapDir = recording.pcap?.dir;
  const pcaps = pcapDir === undefined ? null : existsSync(pcapDir) ? readdirSync(pcapDir).filter((f) => f.endsWith('.pcap')).sort().map((f) => `${variant.name}/pcap/${f}`) : [];
  return { result, data: { name: variant.name, pod, result, tables: readTables(recording.trace.dir), traceOriginPs: podContext(pod, drill.seed).startPs, durationPs: drill.durationPs, pcaps } };
}

/**
 * The variant as a topology file. Size CDF files a workload names are copied beside it (the
 * containers mount this directory, not the drill's).
 */
function podYaml(drill: Drill, variant: DrillVariant, dir: string): string {
  const topology = JSON.parse(JSON.stringify(variant.topology)) as { workloads?: Array<Record<string, unknown>>; nodes?: Array<{ app?: { module?: unknown }; programs?: Array<{ run?: unknown[]; cwd?: unknown }> }> };
  // Absolute: the drill may be named relative to the working directory, and pod.yaml is elsewhere.
  const from = resolve(dirname(variant.pod.file));
  // An app module is named relative to its topology file, which is not beside pod.yaml: it is
  // written as an absolute path, so that the bundler still finds the modules it imports (issue 24:
  // a drill of examples/rdma-hello/pod.yaml could not run its apps).
  for (const n of topology.nodes ?? []) {
    if (typeof n.app?.module === 'string' && !isAbsolute(n.app.module)) n.app.module = join(from, n.app.module);
    // A program's path and directory are relative to its topology file too, and it starts there by default (issue 25).
    for (const p of n.programs ?? []) {
      const run0 = p.run?.[0];
      if (typeof run0 === 'string' && run0.includes('/') && !isAbsolute(run0)) p.run![0] = join(from, run0);
      p.cwd = typeof p.cwd === 'string' ? resolve(from, p.cwd) : from;
    }
  }
  for (const w of topology.workloads ?? []) {
    const sizes = w.sizes as { cdf?: string } | undefined;
    if (typeof sizes?.cdf !== 'string') continue;
    const source = isAbsolute(sizes.cdf) ? sizes.cdf : join(from, sizes.cdf);
    copyFileSync(source, join(dir, basename(source)));
    sizes.cdf = basename(source);
  }
  return `# drill ${drill.name}, variant ${variant.name} (written by rocelab drill run)\n${stringify(topology, { lineWidth: 0 })}`;
}

/** The variant's trace CSVs and any pcap under its directory (`drill run --pcap`), relative to the report, sorted. */
function variantFiles(out: string, variant: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory() && depth < 2) walk(path, depth + 1);
      else if (e.isFile() && (/\.pcap(ng)?$/.test(e.name) || (dir === join(out, variant, 'trace') && e.name.endsWith('.csv')))) found.push(relative(out, path).split('\\').join('/'));
    }
  };
  walk(join(out, variant), 0);
  return found.sort();
}

function readTables(dir: string): TraceTables {
  const tables: TraceTables = {};
  // qp-events.csv (a row per packet) is for people and tools, not expectations: it stays on disk.
  for (const name of TRACE_FILE_NAMES.filter((f) => f !== 'qp-events.csv')) {
    const path = join(dir, name);
    (tables as Record<TraceFileName, unknown>)[name] = parseTraceFile({ name, path, text: readInputFile(path, 'trace file', MAX_TRACE_FILE_BYTES) }).rows;
  }
  return tables;
}

/** A session's faults replayed (`--faults LOG`), each clear folded into its fault's end. */
function replayedFaults(log: readonly FaultLogEntry[]): FaultOutcome[] {
  return appliedFaults(log).map((f) => {
    const { at: _at, for: _for, kind, ...params } = f.item;
    const end = appliedEndPs(f);
    return { id: f.id, kind: String(kind), target: f.target, atNs: f.atPs / 1000, untilNs: end === null ? null : end / 1000, params, source: 'live' };
  });
}

function faultsOf(variant: DrillVariant): FaultOutcome[] {
  return variant.pod.faults.map((f) => {
    const { at: _at, for: _for, kind: _kind, ...params } = f.raw;
    return {
      id: f.index,
      kind: f.kind,
      target: f.target,
      atNs: f.atPs / 1000,
      untilNs: f.forPs === null ? null : (f.atPs + f.forPs) / 1000,
      params,
      source: f.index < variant.topologyFaults ? 'topology' : 'drill',
      ...(f.drawnFrom === undefined ? {} : { drawnFrom: f.drawnFrom }),
    };
  });
}

/** Timeline rows per variant a terminal shows; the report has them all. */
const TERMINAL_TIMELINE_ROWS = 8;

/** The verdict and every expectation, for a terminal. */
function reportText(report: DrillReport, out: string): string {
  const all = [...report.variants.flatMap((v) => v.expectations), ...report.acrossVariants];
  const failed = all.filter((o) => !o.pass);
  const width = Math.max(...all.map((o) => o.id.length));
  const lines = all.flatMap((o) => [
    `${o.pass ? 'pass' : 'FAIL'}  ${o.id.padEnd(width)}  ${o.variant ?? 'across variants'}: ${o.description}`,
    `${' '.repeat(width + 8)}measured ${o.measured}; expected ${o.expected}; ${o.margin}`,
  ]);
  const ms = (ns: number) => `${(ns / 1e6).toFixed(3)} ms`;
  // The audit of every run, and each fault's time to detect and to recover: printed whatever the expectations say (issue 24).
  const audits = report.variants.map((v) => `${v.audit.pass ? 'audit' : 'AUDIT'} ${v.name}: ${v.audit.text}`);
  const incidents = report.variants.flatMap((v) => v.incidents.map((i) => `incident ${v.name}: fault ${i.fault} ${incidentText(i)}`));
  const brokenAudits = report.variants.filter((v) => !v.audit.pass).map((v) => v.name);
  // What the random forms drew (from the drill's seed): the same in every mode, and usually in every variant.
  const drawn = new Set(report.variants.flatMap((v) => v.faults.filter((f) => f.drawnFrom !== undefined).map((f) => `drawn: fault ${f.id} ${f.kind} ${f.target} at ${ms(f.atNs)}${f.untilNs === null ? '' : ` until ${ms(f.untilNs)}`}`)));
  // Who paused whom, per variant: the report's timeline rows, padded as `rocelab run` pads its tables.
  const timelines = report.variants.flatMap((v) => {
    const rows = v.timeline ?? [];
    if (rows.length === 0) return [];
    const shown = rows.slice(0, TERMINAL_TIMELINE_ROWS);
    const more = rows.length - shown.length + (v.timelineOmitted ?? 0);
    return [`variant ${v.name}: who paused whom`, ...table(TIMELINE_HEADER, shown.map(timelineRow), TIMELINE_HEADER.length), ...(more > 0 ? [`  … ${more} more in report.md`] : [])];
  });
  return [
    `drill ${report.drill}: ${report.title}`,
    ...drawn,
    ...timelines,
    ...lines,
    ...incidents,
    ...audits,
    `${report.pass ? 'PASS' : 'FAIL'}: ${all.length - failed.length} of ${all.length} expectations hold${failed.length ? `; failing: ${failed.map((o) => `${o.id}${o.variant ? ` (${o.variant})` : ''}`).join(', ')}` : ''}${brokenAudits.length > 0 ? `; the audit of ${brokenAudits.join(', ')} is broken` : ''}`,
    `report: ${join(out, 'report.md')} (and report.html, report.json, the plots)`,
    ...report.variants.flatMap((v) => (v.pcaps === undefined ? [] : [`pcaps (${v.name}): ${v.pcaps.length} in ${join(out, v.name, 'pcap')}`])),
    '',
  ].join('\n');
}

/** `rocelab drill list`: the built-in drills, one line each. */
export function drillListCommand(): number {
  const files = readdirSync(BUILTIN_DRILLS).filter((f) => f.endsWith('.yaml')).sort();
  const rows = files.map((f) => {
    const text = readInputFile(join(BUILTIN_DRILLS, f), 'drill file');
    const title = /^title:\s*(.+)$/m.exec(text)?.[1]?.replace(/^["']|["']$/g, '') ?? '';
    return [drillName(f), title];
  });
  process.stdout.write(`${table(['drill', 'what it shows'], rows, 2).join('\n')}\n(run one: rocelab drill run drills/<drill>.yaml)\n`);
  return 0;
}
