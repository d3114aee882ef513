/**
 * The hosts' applications (issue 13): each `app.module` is read relative to the topology file,
 * bundled and instrumented (@rocelab/app), and carried in the pod with its args, so that every
 * process runs the same code without reading a file. A module that cannot be run is a problem
 * of the file, at its node's `app.module`.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { AppModuleError, bundleApp, declaredRegions, type BundledApp } from '@rocelab/app';
import { DEFAULT_FLOW_DSCP } from '@rocelab/workload';
import type { Problems } from './errors.js';
import { checkInputFile, InputFileError } from './input-file.js';
import type { NodeTable } from './nodes.js';
import type { AppSpec } from './pod.js';
import type { RawTopology } from './schema.js';

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
    if (bundled === null) continue;
    apps.push({ node: node.name, module: app.module, args: app.args ?? {}, dscp: app.dscp ?? DEFAULT_FLOW_DSCP, source: bundled.source, digest: bundled.digest, regions: [] });
  }
  declareRegions(apps, table, problems);
  return apps;
}

/** Each app's `regions()` for its host, run once here: the pod carries the result, and a bad declaration is a problem of the file, not of a running pod. */
function declareRegions(apps: AppSpec[], table: NodeTable, problems: Problems): void {
  const hosts = apps.map((a) => a.node);
  for (const app of apps) {
    try {
      app.regions = declaredRegions(app.source, app.module, { node: app.node, hosts, args: app.args }).map(([name, spec]) => ({ name, bytes: spec.bytes, access: [...(spec.access ?? [])] }));
    } catch (err) {
      problems.add('value', `nodes[${table.declaredAt.get(app.node)!}].app`, 'an app whose regions() declares {name: {bytes, access}} for its host', err instanceof Error ? err.message : String(err));
    }
  }
}
