// A host's `app`: where its module is read from, and what a module that cannot run looks like.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { declareAppRegions } from './apps.js';
import { loadTopologyFile } from './load.js';
import { assertProblem } from './testing.js';

const dir = mkdtempSync(join(tmpdir(), 'rocelab-topology-apps-'));

function pod(h1: string, sw1 = ''): string {
  const file = join(dir, `pod-${Math.abs(hash(h1 + sw1))}.yaml`);
  writeFileSync(
    file,
    `name: apps\nnodes:\n  - {name: h1, role: host, ip: 10.0.1.1${h1}}\n  - {name: h2, role: host, ip: 10.0.1.2}\n  - {name: sw1, role: tor, subnet: 10.0.1.0/24${sw1}}\nlinks:\n  - {a: h1:p0, b: sw1:p1}\n  - {a: h2:p0, b: sw1:p2}\n`,
  );
  return file;
}

function hash(text: string): number {
  let h = 0;
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) | 0;
  return h;
}

writeFileSync(join(dir, 'ok.mjs'), 'export default async (rdma) => rdma.log("hi");\n');

test('an app module is read relative to the topology file and carried bundled in the pod', () => {
  const spec = loadTopologyFile(pod(', app: {module: ok.mjs, args: {n: 1}}'));
  assert.equal(spec.apps.length, 1);
  const [app] = spec.apps;
  assert.deepEqual({ node: app!.node, module: app!.module, args: app!.args, dscp: app!.dscp }, { node: 'h1', module: 'ok.mjs', args: { n: 1 }, dscp: 26 });
  assert.match(app!.source, /__app/);
  assert.match(app!.digest, /^[0-9a-f]{64}$/);
  assert.deepEqual([app!.memoryBytes, app!.steps, app!.regions], [64 * 1024 * 1024, 200_000_000, null], 'the default limits; regions not declared: loading runs no app code');
});

test('an app’s memory and steps are bounded settings: out of range is a problem at its key', () => {
  const memory = pod(', app: {module: ok.mjs, memory: 4GiB}');
  assertProblem(() => loadTopologyFile(memory), { file: memory, code: 'value', path: 'nodes[0].app.memory', expected: 'an app memory of 1MiB..512MiB', actual: '"4GiB"' });
  const steps = pod(', app: {module: ok.mjs, steps: 10}');
  assertProblem(() => loadTopologyFile(steps), { file: steps, code: 'schema', path: 'nodes[0].app.steps', expected: 'steps of its interpreter' });
  const [app] = loadTopologyFile(pod(', app: {module: ok.mjs, memory: 16MiB, steps: 5000000}')).apps;
  assert.deepEqual([app!.memoryBytes, app!.steps], [16 * 1024 * 1024, 5_000_000]);
});

test('a module that does not exist is a problem at the node’s app.module', () => {
  const file = pod(', app: {module: missing.mjs}');
  assertProblem(() => loadTopologyFile(file), { file, code: 'value', path: 'nodes[0].app.module', expected: 'an app module that builds', actual: 'Could not resolve' });
});

test('an app on a switch is refused: apps run on hosts', () => {
  const file = pod('', ', app: {module: ok.mjs}');
  assertProblem(() => loadTopologyFile(file), { file, code: 'value', path: 'nodes[2].app', expected: 'an app on a host only', actual: 'an app on sw1, a tor' });
});

test('an app without a module is a schema problem naming what a module is', () => {
  const file = pod(', app: {args: {}}');
  assertProblem(() => loadTopologyFile(file), { file, code: 'schema', path: 'nodes[0].app.module', expected: 'the path of an app module' });
});

test('a regions() that declares a bad region is a problem at the node’s app, found when the pod is about to run (not when the file is read)', async () => {
  writeFileSync(join(dir, 'bad-regions.mjs'), 'export const regions = ({ node }) => ({ buf: { bytes: node === "h1" ? -1 : 8 } });\nexport default async () => {};\n');
  const file = pod(', app: {module: bad-regions.mjs}');
  const spec = loadTopologyFile(file);
  let error: unknown;
  try {
    await declareAppRegions(spec);
  } catch (err) {
    error = err;
  }
  assertProblem(() => {
    throw error;
  }, { file, code: 'value', path: 'nodes[0].app', expected: 'regions() declares', actual: 'region "buf" needs bytes, an integer 0..2^30, got -1' });
});

test('declared regions are carried in the pod, per host and in order', async () => {
  writeFileSync(join(dir, 'two-regions.mjs'), 'export const regions = ({ node }) => ({ a: { bytes: 64, access: ["remoteRead"] }, b: node === "h1" ? { bytes: 8 } : undefined });\nexport default async () => {};\n');
  const spec = loadTopologyFile(pod(', app: {module: two-regions.mjs}'));
  await declareAppRegions(spec);
  assert.deepEqual(spec.apps[0]!.regions, [{ name: 'a', bytes: 64, access: ['remoteRead'] }, { name: 'b', bytes: 8, access: [] }]);
});
