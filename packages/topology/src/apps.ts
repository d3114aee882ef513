/**
 * The hosts' applications (issue 13): each `app.module` is read relative to the topology file,
 * bundled and type-checked (@rocelab/app), and carried in the pod with its args and limits, so
 * that every process runs the same code without reading a file. A module that cannot be built is
 * a problem of the file, at its node's `app.module`. Loading a file runs no app code: an app is
 * code from whoever wrote the file. Its `regions()` run only when a command is about to run the
 * pod (`declareAppRegions`), in the app's sandbox under its limits.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { AppModuleError, bundleApp, declaredRegions, DEFAULT_APP_LIMITS, type BundledApp } from '@rocelab/app';
import type { RemoteAccess } from '@rocelab/rnic';
import { DEFAULT_FLOW_DSCP } from '@rocelab/workload';
import { TopologyError, type Problems } from './errors.js';
import { checkInputFile, InputFileError } from './input-file.js';
import type { NodeTable } from './nodes.js';
import type { AppSpec, PodSpec } from './pod.js';
import type { RawTopology } from './schema.js';
import { EXPECT, parseBytes } from './units.js';

const MiB = 1024 * 1024;
/** Bounds of `app.memory`: enough for QuickJS and a small app; at most what a 32-bit machine holds beside its regions. */
export const APP_MEMORY_MIN = MiB;
export const APP_MEMORY_MAX = 512 * MiB;
/** An app host's regions together, at most (they share the app's 32-bit machine with its heap). */
export const APP_REGIONS_MAX = 1024 * MiB;

export function resolveApps(raw: RawTopology, file: string, table: NodeTable, problems: Problems): AppSpec[] {
  const bundles = new Map<string, BundledApp | null>();
  const apps: AppSpec[] = [];
  for (const node of table.nodes) {
    const at = table.declaredAt.get(node.name)!;
    const app = raw.nodes[at]!.app;
    if (app === undefined) continue;
    const path = `nodes[${at}].app`;
    if (node.role !== 'host') {
      problems.add('value', path, 'an app on a host only (it runs on the host and its NIC)', `an app on ${node.name}, a ${node.role}`);
      continue;
    }
    const modulePath = isAbsolute(app.module) ? app.module : resolve(file === '<inline>' ? process.cwd() : dirname(file), app.module);
    let bundled = bundles.get(modulePath);
    if (bundled === undefined) {
      try {
        // esbuild reads the module itself: refuse a special or oversized file before it does (one that is not there, esbuild names).
        try {
          checkInputFile(modulePath, 'app module');
        } catch (err) {
          if (!(err instanceof InputFileError && err.reason === 'unreadable')) throw err;
        }
        bundled = bundleApp(modulePath, app.module);
      } catch (err) {
        if (err instanceof InputFileError) problems.add('value', `${path}.module`, err.expected, `${err.path}: ${err.actual}`);
        else if (err instanceof AppModuleError) problems.add('value', `${path}.module`, 'an app module that builds (an ES module; TypeScript type-checked against rocelab/app)', err.problems.join('; '));
        else throw err;
        bundled = null;
      }
      bundles.set(modulePath, bundled);
    }
    const memoryBytes = app.memory === undefined ? DEFAULT_APP_LIMITS.memoryBytes : problems.parse(`${path}.memory`, DEFAULT_APP_LIMITS.memoryBytes, () => parseBytes(app.memory!));
    if (memoryBytes < APP_MEMORY_MIN || memoryBytes > APP_MEMORY_MAX) problems.add('value', `${path}.memory`, `an app memory of 1MiB..512MiB (${EXPECT.bytes})`, JSON.stringify(app.memory));
    if (bundled === null) continue;
    apps.push({ node: node.name, module: app.module, args: app.args ?? {}, dscp: app.dscp ?? DEFAULT_FLOW_DSCP, source: bundled.source, digest: bundled.digest, memoryBytes, steps: app.steps ?? DEFAULT_APP_LIMITS.steps, where: path, regions: null });
  }
  return apps;
}

/**
 * Each app's `regions()` for its host, run in the app's sandbox: what every process of the pod
 * then knows of every app host's memory. Called by the commands that run a pod, once, before
 * anything starts (a member that loads the file itself calls it too: the same code, the same
 * answer). A bad declaration is a problem of the file at the node's `app` (TopologyError).
 */
export async function declareAppRegions(pod: PodSpec): Promise<void> {
  const pending = pod.apps.filter((a) => a.regions === null);
  if (pending.length === 0) return;
  const hosts = pod.apps.map((a) => a.node);
  const problems: Problems['list'] = [];
  const bySource = new Map<string, AppSpec[]>();
  for (const app of pending) bySource.set(`${app.digest}:${app.memoryBytes}:${app.steps}`, [...(bySource.get(`${app.digest}:${app.memoryBytes}:${app.steps}`) ?? []), app]);
  for (const group of bySource.values()) {
    const first = group[0]!;
    const answers = await declaredRegions(first.source, first.module, group.map((a) => ({ node: a.node, args: a.args })), hosts, { memoryBytes: first.memoryBytes, steps: first.steps });
    group.forEach((app, i) => {
      const answer = answers[i]!;
      const expected = 'an app whose regions() declares {name: {bytes, access}} for its host';
      if (typeof answer === 'string') {
        problems.push({ code: 'value', path: app.where, expected, actual: answer.startsWith('app ') ? answer : `app ${app.module} on ${app.node}: ${answer}` });
        return;
      }
      const total = answer.reduce((sum, r) => sum + r.bytes, 0);
      if (total > APP_REGIONS_MAX) {
        problems.push({ code: 'value', path: app.where, expected: 'regions of at most 1GiB in all on a host', actual: `app ${app.module} on ${app.node}: regions() declared ${total} bytes` });
        return;
      }
      app.regions = answer.map((r) => ({ name: r.name, bytes: r.bytes, access: r.access as RemoteAccess[] }));
    });
  }
  if (problems.length > 0) throw new TopologyError(pod.file, problems);
}
