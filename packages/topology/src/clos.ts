/**
 * The three-tier Clos generator (DESIGN §8, `rocelab topology clos`): `pods` pods, each of
 * `torsPerPod` ToRs and `leavesPerPod` leaves, every ToR wired to every leaf of its pod, every
 * leaf to every spine, `hostsPerTor` hosts under each ToR.
 *
 * Names and addresses are positional, so a reader can find a node from its address and back:
 * ToR t of pod p owns 10.p.t.0/24 and its host h is 10.p.t.h. Ports follow the fixtures'
 * convention — a host's one port is `p0`, a ToR's host ports `p1…`, every switch's ports
 * towards the spines `up1…` and towards the hosts `down1…` — so the generated file reads like a
 * hand-written one. The output is text, not an object, because it is meant to be committed and
 * diffed: the same arguments give the same bytes.
 */
import type { Timing } from './pod.js';
import { NODE_NAME_PATTERN, TIMINGS } from './schema.js';
import { EXPECT, parseBytes, parseDuration, parseRate, UnitError } from './units.js';

export interface ClosShape {
  spines: number;
  leavesPerPod: number;
  torsPerPod: number;
  pods: number;
  hostsPerTor: number;
}

export interface ClosOptions extends ClosShape {
  /** The pod's name; default `clos-S-L-T-P-H`. */
  name?: string;
  seed?: number;
  /** `drill` scales the watchdog and stall-prevention timers down (2 ms detection instead of 200 ms). */
  timing?: Timing;
  /** Link rate (`40G`) and one-way latency (`1us`) of every link, written to the file as given. */
  rate: string;
  latency: string;
  /** `defaults.pipelineLatency`: the switches' (`1us`) and the hosts' NICs' fixed pipeline latency. */
  switchPipeline?: string;
  hostPipeline?: string;
  /** Adds `{kind: permutation, sizeBytes}`: every host sends one flow of this size (`1GB`) to another. */
  permutation?: string;
  /** Adds `{kind: pingmesh, interval}`: every host probes every other host at this interval (`100us`). */
  pingmesh?: string;
  /** Adds `{kind: nicPauseStorm}`: this host's NIC pauses its ToR from `at` on (a malfunctioning NIC). */
  pauseStorm?: { host: string; at: string };
  /** `defaults.nic.qpMetrics`: every NIC exports its QPs' DCQCN rate, target and α (the DCQCN dashboard's panels). */
  qpMetrics?: boolean;
  /** The command line that produced the file, recorded in its header. */
  command?: string;
}

/** Limits that keep the positional addresses valid (10.p.t.h, each octet 1..254). */
export const CLOS_LIMITS: Readonly<Record<keyof ClosShape, number>> = {
  spines: 254,
  leavesPerPod: 254,
  torsPerPod: 254,
  pods: 254,
  hostsPerTor: 254,
};

export class ClosError extends Error {}

/** Every problem with the options, each as `what: expected …, got …`. */
export function closProblems(options: ClosOptions): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(CLOS_LIMITS) as (keyof ClosShape)[]) {
    const v = options[key];
    if (!Number.isSafeInteger(v) || v < 1 || v > CLOS_LIMITS[key]) problems.push(`${key}: expected an integer in 1..${CLOS_LIMITS[key]}, got ${v}`);
  }
  const shapeOk = problems.length === 0;
  const check = (what: string, text: string | undefined, parse: (t: string) => number, expected: string, positive = false): void => {
    if (text === undefined) return;
    try {
      const value = parse(text);
      if (positive && value === 0) problems.push(`${what}: expected ${expected}, more than zero, got ${JSON.stringify(text)}`);
    } catch (err) {
      if (!(err instanceof UnitError)) throw err;
      problems.push(`${what}: expected ${expected}, got ${JSON.stringify(text)}`);
    }
  };
  check('rate', options.rate, parseRate, EXPECT.rate);
  check('latency', options.latency, parseDuration, EXPECT.duration, true);
  check('permutation', options.permutation, parseBytes, EXPECT.bytes, true);
  check('pingmesh', options.pingmesh, parseDuration, EXPECT.duration, true);
  check('switch pipeline latency', options.switchPipeline, parseDuration, EXPECT.duration);
  check('host pipeline latency', options.hostPipeline, parseDuration, EXPECT.duration);
  if (options.timing !== undefined && !(TIMINGS as readonly string[]).includes(options.timing)) problems.push(`timing: expected one of ${TIMINGS.join(', ')}, got ${JSON.stringify(options.timing)}`);
  if (options.pauseStorm !== undefined) {
    check('pause storm time', options.pauseStorm.at, parseDuration, EXPECT.duration);
    const hosts = shapeOk ? closNames(options).hosts.flat(2) : [];
    if (shapeOk && !hosts.includes(options.pauseStorm.host)) problems.push(`pause storm host: expected one of the generated hosts h1…h${hosts.length}, got ${JSON.stringify(options.pauseStorm.host)}`);
  }
  // Written unquoted into the YAML, so held to the node-name pattern.
  if (options.name !== undefined && !new RegExp(NODE_NAME_PATTERN).test(options.name)) problems.push(`name: expected lowercase letters, digits and '-', starting with a letter, got ${JSON.stringify(options.name)}`);
  return problems;
}

export interface ClosNames {
  spines: string[];
  /** `[pod][leaf]` */
  leaves: string[][];
  /** `[pod][tor]` */
  tors: string[][];
  /** `[pod][tor][host]` */
  hosts: string[][][];
}

/**
 * Global numbering within each tier (`leaf3` is the first leaf of pod 2 when there are two per
 * pod), so names stay short and unique without encoding the pod.
 */
export function closNames(shape: ClosShape): ClosNames {
  const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
  const pods = range(shape.pods);
  return {
    spines: range(shape.spines).map((s) => `spine${s + 1}`),
    leaves: pods.map((p) => range(shape.leavesPerPod).map((l) => `leaf${p * shape.leavesPerPod + l + 1}`)),
    tors: pods.map((p) => range(shape.torsPerPod).map((t) => `tor${p * shape.torsPerPod + t + 1}`)),
    hosts: pods.map((p) =>
      range(shape.torsPerPod).map((t) => range(shape.hostsPerTor).map((h) => `h${(p * shape.torsPerPod + t) * shape.hostsPerTor + h + 1}`)),
    ),
  };
}

export function generateClos(options: ClosOptions): string {
  const problems = closProblems(options);
  if (problems.length > 0) throw new ClosError(problems.join('; '));
  const { spines, leavesPerPod, torsPerPod, pods, hostsPerTor } = options;
  const names = closNames(options);
  const hostCount = pods * torsPerPod * hostsPerTor;
  const name = options.name ?? `clos-${spines}-${leavesPerPod}-${torsPerPod}-${pods}-${hostsPerTor}`;

  const out: string[] = [];
  const header = [
    `A three-tier Clos: ${spines} spine${spines === 1 ? '' : 's'}; ${pods} pod${pods === 1 ? '' : 's'} of ${torsPerPod} ToR${torsPerPod === 1 ? '' : 's'} and ${leavesPerPod} lea${leavesPerPod === 1 ? 'f' : 'ves'};`,
    `${hostsPerTor} host${hostsPerTor === 1 ? '' : 's'} per ToR (${hostCount} in all). Every ToR links to every leaf of its pod, every leaf`,
    'to every spine. ToR t of pod p owns 10.p.t.0/24; its host h is 10.p.t.h.',
  ];
  if (options.command) header.push(`Generated by: ${options.command}`);
  for (const line of header) out.push(`# ${line}`);
  out.push(`name: ${name}`);
  if (options.seed !== undefined) out.push(`seed: ${options.seed}`);
  if (options.timing !== undefined) out.push(`timing: ${options.timing}`);
  out.push('defaults:');
  out.push(`  link: {rate: ${options.rate}, latency: ${options.latency}}`);
  const pipelines = [['switch', options.switchPipeline], ['host', options.hostPipeline]].filter(([, v]) => v !== undefined).map(([k, v]) => `${k}: ${v}`);
  if (pipelines.length > 0) out.push(`  pipelineLatency: {${pipelines.join(', ')}}`);
  if (options.qpMetrics === true) out.push('  nic: {qpMetrics: true}');

  out.push('nodes:');
  for (const s of names.spines) out.push(`  - {name: ${s}, role: spine}`);
  for (let p = 0; p < pods; p++) {
    for (const l of names.leaves[p]!) out.push(`  - {name: ${l}, role: leaf}`);
    names.tors[p]!.forEach((t, ti) => out.push(`  - {name: ${t}, role: tor, subnet: 10.${p + 1}.${ti + 1}.0/24}`));
  }
  for (let p = 0; p < pods; p++) {
    for (let t = 0; t < torsPerPod; t++) {
      names.hosts[p]![t]!.forEach((h, hi) => out.push(`  - {name: ${h}, role: host, ip: 10.${p + 1}.${t + 1}.${hi + 1}}`));
    }
  }

  out.push('links:');
  for (let p = 0; p < pods; p++) {
    for (let t = 0; t < torsPerPod; t++) {
      const tor = names.tors[p]![t]!;
      names.hosts[p]![t]!.forEach((h, hi) => out.push(`  - {a: ${h}:p0, b: ${tor}:p${hi + 1}}`));
    }
  }
  for (let p = 0; p < pods; p++) {
    names.tors[p]!.forEach((tor, ti) => {
      names.leaves[p]!.forEach((leaf, li) => out.push(`  - {a: ${tor}:up${li + 1}, b: ${leaf}:down${ti + 1}}`));
    });
  }
  for (let p = 0; p < pods; p++) {
    names.leaves[p]!.forEach((leaf, li) => {
      const leafIndex = p * leavesPerPod + li;
      names.spines.forEach((spine, si) => out.push(`  - {a: ${leaf}:up${si + 1}, b: ${spine}:down${leafIndex + 1}}`));
    });
  }

  const workloads: string[] = [];
  if (options.permutation !== undefined) workloads.push(`  - {kind: permutation, sizeBytes: ${options.permutation}, start: 0us}`);
  if (options.pingmesh !== undefined) workloads.push(`  - {kind: pingmesh, interval: ${options.pingmesh}}`);
  if (workloads.length > 0) out.push('workloads:', ...workloads);
  if (options.pauseStorm !== undefined) out.push('faults:', `  - {at: ${options.pauseStorm.at}, kind: nicPauseStorm, node: ${options.pauseStorm.host}}`);
  return `${out.join('\n')}\n`;
}
