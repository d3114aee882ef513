import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { bundleIsFresh, memberEntry } from './member-entries.js';

test('a bundle is used only while it is at least as new as every file it was made from', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-bundle-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const bundle = join(dir, 'x.bundle.mjs');
  const at = (file: string, seconds: number) => utimesSync(file, seconds, seconds);
  writeFileSync(join(dir, 'a.js'), '');
  writeFileSync(join(dir, 'b.js'), '');
  assert.equal(bundleIsFresh(bundle), false, 'no bundle');
  writeFileSync(bundle, '');
  assert.equal(bundleIsFresh(bundle), false, 'no list of inputs');
  writeFileSync(`${bundle}.inputs.json`, JSON.stringify(['a.js', 'b.js']));
  at(join(dir, 'a.js'), 1000);
  at(join(dir, 'b.js'), 1000);
  at(bundle, 1000);
  assert.equal(bundleIsFresh(bundle), true, 'made from these very files');
  at(join(dir, 'b.js'), 1001);
  assert.equal(bundleIsFresh(bundle), false, 'an input rebuilt since');
  at(join(dir, 'b.js'), 999);
  rmSync(join(dir, 'a.js'));
  assert.equal(bundleIsFresh(bundle), false, 'an input gone');
});

test('after npm run build, every member runs its bundle through the code-cache loader', () => {
  for (const entry of ['switch', 'host', 'worker'] as const) {
    const [loader, bundle] = memberEntry(entry);
    assert.match(loader!, /\/member-loader\.cjs$/, entry);
    assert.match(bundle!, new RegExp(`/${entry}\\.bundle\\.cjs$`), entry);
  }
});

test('the resolved pod goes to members as JSON only when JSON carries it exactly', async (t) => {
  const { writePodJson } = await import('./pod-processes.js');
  const { parseTopology } = await import('@rocelab/topology');
  const { createLogger } = await import('@rocelab/telemetry');
  const { readFileSync } = await import('node:fs');
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-podjson-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const log = createLogger('test', {}, 'silent');
  const pod = parseTopology(['name: pair', 'nodes:', '  - {name: sw1, role: switch}', '  - {name: h1, role: host, ip: 10.0.0.1}', 'links:', '  - {a: h1:p0, b: sw1:p1}'].join('\n'), 'pair.yaml');
  const path = writePodJson(pod, dir, log);
  assert.ok(path !== null);
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), pod);
  // A value JSON cannot hold (here a time without end): members load the topology file instead.
  const endless = { ...pod, defaults: { ...pod.defaults, horizonPs: Infinity } };
  assert.equal(writePodJson(endless, dir, log), null);
});
