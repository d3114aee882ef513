// The app sandbox and bundler without a NIC: what runs when, what crosses, and what is refused.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { AppModuleError, bundleApp } from './bundle.js';
import { module, sandbox } from './sandbox-harness.js';
import { declaredRegions, DEFAULT_APP_LIMITS } from './sandbox.js';

test('an app runs until it waits, and each event runs its continuations before the dispatch returns', async () => {
  const { h, s } = await sandbox(`
    export default async function (rdma) {
      rdma.log('start ' + rdma.args.n);
      await rdma.sleep(rdma.us(2));
      rdma.log('woke at ' + rdma.now());
      await Promise.resolve();
      const qp = rdma.connect('h2');
      const wc = await qp.write(rdma.region('buf').slice(0, 7), rdma.remote('h2', 'buf').at(8));
      rdma.report('bytes', wc.bytes);
    }`);
  s.start();
  assert.deepEqual(h.log, ['start 3']);
  assert.equal(h.wake, 2_000_000);
  h.now = 2_000_000;
  s.dispatch();
  assert.deepEqual(h.log, ['start 3', 'woke at 2000000'], 'the continuation ran inside the dispatch');
  assert.equal(h.posts.length, 1, 'and so did the post after a resolved promise');
  const { peer, work, at } = h.posts[0]!;
  assert.deepEqual([peer, at, work.opcode, work.sizeBytes, work.remote], ['h2', 2_000_000, 'write', 7, { address: 0x1000_0008n, rkey: 0x15a }]);
  h.now = 5_000_000;
  h.events.push({ kind: 'completion', id: 1, ok: true, opcode: 'write', bytes: 7, postedPs: 2_000_000, completedPs: 5_000_000 });
  s.dispatch();
  assert.deepEqual(h.reports, { bytes: 7 });
  assert.equal(h.status, 'finished');
});

test('a region is the app’s own memory: the host sees what the app wrote, and the app sees what the NIC wrote', async () => {
  const { h, s } = await sandbox(`
    export default async function (rdma) {
      const buf = rdma.region('buf');
      buf.bytes.set([1, 2, 3], 10);
      const wc = await rdma.connect('h2').read(buf.slice(100, 4), rdma.remote('h2', 'buf').at(0));
      rdma.report('read', Array.from(buf.bytes.subarray(100, 104)).join(','));
      rdma.report('original', String((await rdma.connect('h2').fetchAdd(buf.slice(200, 8), rdma.remote('h2', 'buf').at(0), 5n)).original));
    }`);
  s.start();
  const read = h.posts[0]!.work;
  assert.deepEqual([...s.regionBytes[0]!.subarray(10, 13)], [1, 2, 3], 'the host reads the app’s writes in place');
  read.local!.set([9, 8, 7, 6]);
  h.events.push({ kind: 'completion', id: 1, ok: true, opcode: 'read', bytes: 4, postedPs: 0, completedPs: 10 });
  s.dispatch();
  assert.equal(h.reports.read, '9,8,7,6', 'the app reads what the NIC wrote into its buffer');
  const atomic = h.posts[1]!.work;
  assert.deepEqual([atomic.opcode, atomic.operand, atomic.local!.length], ['fetchAdd', 5n, 8]);
  h.events.push({ kind: 'completion', id: 2, ok: true, opcode: 'fetchAdd', bytes: 8, postedPs: 10, completedPs: 20, original: 0x1_0000_0002n });
  s.dispatch();
  assert.equal(h.reports.original, String(0x1_0000_0002n), 'a 64-bit original crosses whole');
});

test('a failed work request rejects with the app, node and operation; uncaught, it stops the app', async () => {
  const { h, s } = await sandbox(`export default async (rdma) => { await rdma.connect('h2').read(rdma.region('buf').slice(0, 0), { address: 0x10000000n, rkey: 0x15a }); }`);
  s.start();
  h.events.push({ kind: 'completion', id: 1, ok: false, status: 0 });
  s.dispatch();
  assert.equal(h.status, 'failed');
  assert.equal(h.error, 'app t.mjs on h1: read of 0 bytes from h2 at 0x10000000 (rkey 0x15a) failed: remote access error');
});

test('events beyond one mailbox are handed over in chunks, in order', async () => {
  const { h, s } = await sandbox(`
    export default async function (rdma) {
      const qp = rdma.connect('h2');
      const all = [];
      for (let i = 0; i < 200; i++) all.push(qp.write(rdma.region('buf').slice(i, 1), rdma.remote('h2', 'buf').at(i)));
      const done = await Promise.all(all);
      rdma.report('completed', done.map((c) => c.completedPs).join() === Array.from({ length: 200 }, (_, i) => i).join());
    }`);
  s.start();
  for (let i = 0; i < 200; i++) h.events.push({ kind: 'completion', id: i + 1, ok: true, opcode: 'write', bytes: 1, postedPs: 0, completedPs: i });
  s.dispatch();
  assert.deepEqual([h.status, h.reports.completed], ['finished', true]);
});

test('an endless loop is stopped after a counted number of steps, and the app stays stopped', async () => {
  const { h, s } = await sandbox(`export default async (rdma) => { let i = 0; try { for (;;) i++; } catch { for (;;) i++; } }`, { ...DEFAULT_APP_LIMITS, steps: 1_000_000 });
  s.start();
  assert.equal(h.status, 'failed');
  assert.match(h.error!, /^app t\.mjs on h1: ran 1,000,000 steps of its interpreter without waiting for the fabric/);
  h.events.push({ kind: 'completion', id: 1, ok: true, opcode: 'write', bytes: 1, postedPs: 0, completedPs: 1 });
  s.dispatch();
  assert.equal(h.log.length, 0, 'nothing of it runs again');
});

test('an endless chain of awaits with no loop is stopped too (calls count)', async () => {
  const { h, s } = await sandbox(`export default async function again(rdma) { await null; return again(rdma); }`, { ...DEFAULT_APP_LIMITS, steps: 200_000 });
  s.start();
  assert.equal(h.status, 'failed');
  assert.match(h.error!, /ran 200,000 steps/);
});

test('the same app is stopped at the same step in every run: work is counted, not timed', async () => {
  const text = `export default async (rdma) => { let i = 0; for (;;) { i++; if (i % 1000 === 0) rdma.log('at ' + i); } }`;
  const logs = [];
  for (let k = 0; k < 2; k++) {
    const { h, s } = await sandbox(text, { ...DEFAULT_APP_LIMITS, steps: 500_000 });
    s.start();
    logs.push(h.log.at(-1));
  }
  assert.ok(logs[0] !== undefined);
  assert.equal(logs[0], logs[1]);
});

test('regions() runs in the sandbox per host as a pure function, and a bad declaration names the app, the host and the region', async () => {
  const b = bundleApp(module('r.mjs', `export const regions = ({ node, args }) => ({ buf: { bytes: node === 'h1' ? args.size : 8, access: ['remoteRead'] } }); export default async () => {};`), 'r.mjs');
  const hosts = ['h1', 'h2'];
  assert.deepEqual(await declaredRegions(b.source, 'r.mjs', [{ node: 'h1', args: { size: 100 } }, { node: 'h2', args: {} }], hosts), [
    [{ name: 'buf', bytes: 100, access: ['remoteRead'] }],
    [{ name: 'buf', bytes: 8, access: ['remoteRead'] }],
  ]);
  const [bad] = await declaredRegions(b.source, 'r.mjs', [{ node: 'h1', args: { size: -1 } }], hosts);
  assert.match(bad as string, /regions\(\): region "buf" needs bytes, an integer 0\.\.2\^30, got -1/);
  const random = bundleApp(module('q.mjs', `export const regions = () => ({ buf: { bytes: Math.floor(Math.random() * 9) } }); export default async () => {};`), 'q.mjs');
  const [threw] = await declaredRegions(random.source, 'q.mjs', [{ node: 'h2', args: {} }], hosts);
  assert.match(threw as string, /regions\(\) threw: Error: app q\.mjs \(regions\): Math\.random is not deterministic/);
  const spin = bundleApp(module('s.mjs', `export const regions = () => { for (;;); }; export default async () => {};`), 's.mjs');
  const [spun] = await declaredRegions(spin.source, 's.mjs', [{ node: 'h3', args: {} }], hosts, { ...DEFAULT_APP_LIMITS, steps: 100_000 });
  assert.match(spun as string, /^app s\.mjs on h3 \(regions\): ran 100,000 steps/);
});

test('a TypeScript app is type-checked against rocelab/app: a type error is refused with file:line:col', () => {
  const good = module('good.ts', `import type { Rdma, Regions } from 'rocelab/app';\nexport const regions: Regions = () => ({ b: { bytes: 8 } });\nexport default async function (rdma: Rdma): Promise<void> { await rdma.sleep(rdma.us(1)); }\n`);
  assert.ok(bundleApp(good, 'good.ts').source.includes('__app'));
  const bad = module('bad.ts', `import type { Rdma } from 'rocelab/app';\nexport default async function (rdma: Rdma): Promise<void> {\n  await rdma.sleep('1us');\n}\n`);
  assert.throws(
    () => bundleApp(bad, 'bad.ts'),
    (err: unknown) => err instanceof AppModuleError && /bad\.ts:3:20: Argument of type 'string' is not assignable to parameter of type 'number'/.test(err.message),
  );
});

test('an app that imports a Node module is refused: an app is pure', () => {
  const path = module('io.mjs', `import { readFileSync } from 'node:fs'; export default async () => readFileSync('/etc/passwd');`);
  assert.throws(() => bundleApp(path, 'io.mjs'), /app io\.mjs: .*io\.mjs:1:\d+: Could not resolve "node:fs" \(an app is pure: no Node modules\)/);
});

test('a bundle’s digest does not depend on where its module lives (a container mounts the directory elsewhere), nor on a tsconfig.json near it', () => {
  const text = 'export default async (rdma) => rdma.log("same");\n';
  const elsewhere = mkdtempSync(join(tmpdir(), 'rocelab-app-elsewhere-'));
  writeFileSync(join(elsewhere, 'same.mjs'), text);
  const withTsconfig = mkdtempSync(join(tmpdir(), 'rocelab-app-tsconfig-'));
  writeFileSync(join(withTsconfig, 'tsconfig.json'), '{"compilerOptions": {"strict": false, "alwaysStrict": false}}');
  writeFileSync(join(withTsconfig, 'same.mjs'), text);
  const digest = bundleApp(module('same.mjs', text), 'same.mjs').digest;
  assert.equal(bundleApp(join(elsewhere, 'same.mjs'), 'same.mjs').digest, digest);
  assert.equal(bundleApp(join(withTsconfig, 'same.mjs'), 'same.mjs').digest, digest);
  assert.match(bundleApp(join(withTsconfig, 'same.mjs'), 'same.mjs').source, /^"use strict";/, 'an ES module is strict, as it is in Node');
});
