// The app sandbox and bundler without a NIC: what runs when, what is refused, and why.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { AppModuleError, bundleApp } from './bundle.js';
import { AppSandbox, declaredRegions, TICK_LIMIT, type SandboxEvent, type SandboxHost } from './sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'rocelab-app-'));

function module(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** A host that records what the app did; `now` and the events are the test's to set. */
function fakeHost() {
  const h = {
    now: 0,
    wake: -1,
    events: [] as SandboxEvent[],
    log: [] as string[],
    reports: {} as Record<string, unknown>,
    posts: [] as string[],
    status: 'running' as string,
    error: null as string | null,
  };
  const host: SandboxHost = {
    label: 'app t.mjs on h1',
    module: 't.mjs',
    info: { node: 'h1', hosts: ['h1', 'h2'], args: { n: 3 } },
    nowPs: () => h.now,
    random: () => 0.25,
    post: (peer, opcode) => {
      h.posts.push(`${opcode}→${peer}@${h.now}`);
      return h.posts.length;
    },
    postRecv: () => {},
    checkPeer: () => {},
    wakeAt: (ps) => void (h.wake = ps),
    takeEvents: () => h.events.splice(0),
    log: (m) => void h.log.push(m),
    report: (k, v) => void (h.reports[k] = v),
    region: () => ({}),
    remote: () => ({}),
    counter: () => ({}),
    histogram: () => ({}),
    finished: () => void (h.status = 'finished'),
    failed: (m) => {
      h.status = 'failed';
      h.error = m;
    },
  };
  return { h, host };
}

function sandbox(text: string, tickLimit = TICK_LIMIT) {
  const b = bundleApp(module('t.mjs', text), 't.mjs');
  const { h, host } = fakeHost();
  return { h, s: new AppSandbox(b.source, 't.mjs', host, tickLimit) };
}

test('an app runs until it waits, and each event runs its continuations before the dispatch returns', () => {
  const { h, s } = sandbox(`
    export default async function (rdma) {
      rdma.log('start ' + rdma.args.n);
      await rdma.sleep(rdma.us(2));
      rdma.log('woke at ' + rdma.now());
      await Promise.resolve();
      const qp = rdma.connect('h2');
      const wc = await qp.write(null, { address: 0n, rkey: 1 });
      rdma.report('bytes', wc.bytes);
    }`);
  s.start();
  assert.deepEqual(h.log, ['start 3']);
  assert.equal(h.wake, 2_000_000);
  h.now = 2_000_000;
  s.dispatch();
  assert.deepEqual(h.log, ['start 3', 'woke at 2000000'], 'the continuation ran inside the dispatch');
  assert.deepEqual(h.posts, ['write→h2@2000000'], 'and so did the post after a resolved promise');
  h.now = 5_000_000;
  h.events.push({ kind: 'completion', id: 1, ok: true, opcode: 'write', bytes: 7, postedPs: 2_000_000, completedPs: 5_000_000 });
  s.dispatch();
  assert.deepEqual(h.reports, { bytes: 7 });
  assert.equal(h.status, 'finished');
});

test('a failed work request rejects with the app, node and operation; uncaught, it stops the app', () => {
  const { h, s } = sandbox(`export default async (rdma) => { await rdma.connect('h2').read(null, { address: 0x10000000n, rkey: 0x15a }); }`);
  s.start();
  h.events.push({ kind: 'completion', id: 1, ok: false, error: 'remote access error' });
  s.dispatch();
  assert.equal(h.status, 'failed');
  assert.equal(h.error, 'app t.mjs on h1: read of 0 bytes from h2 at 0x10000000 (rkey 0x15a) failed: remote access error');
});

test('an endless loop is stopped after a counted number of iterations, and the app stays stopped', () => {
  const { h, s } = sandbox(`export default async (rdma) => { let i = 0; try { for (;;) i++; } catch { for (;;) i++; } }`);
  s.start();
  assert.equal(h.status, 'failed');
  assert.match(h.error!, new RegExp(`^app t\\.mjs on h1: ran ${TICK_LIMIT.toLocaleString('en-US')} loop iterations`));
});

test('an endless chain of awaits with no loop is stopped too (function bodies count)', () => {
  const { h, s } = sandbox(`export default async function again(rdma) { await null; return again(rdma); }`, 100_000);
  s.start();
  assert.equal(h.status, 'failed');
  assert.match(h.error!, /ran 100,000 loop iterations and calls without waiting/);
});

test('Math.random, Date.now and eval are refused with what to use instead', () => {
  for (const [code, expected] of [
    ['Math.random()', /Math\.random is not deterministic: use rdma\.random\(\)/],
    ['Date.now()', /Date\.now\(\) reads the wall clock: use rdma\.now\(\)/],
    ['new Date()', /new Date\(\) reads the wall clock/],
    ['eval("1")', /Code generation from strings disallowed/],
  ] as const) {
    const { h, s } = sandbox(`export default async () => { ${code}; }`);
    s.start();
    assert.equal(h.status, 'failed', code);
    assert.match(h.error!, expected);
  }
});

test('regions() is evaluated per host as a pure function, and a bad declaration names the app, the host and the region', () => {
  const b = bundleApp(module('r.mjs', `export const regions = ({ node, args }) => ({ buf: { bytes: node === 'h1' ? args.size : 8, access: ['remoteRead'] } }); export default async () => {};`), 'r.mjs');
  assert.deepEqual(declaredRegions(b.source, 'r.mjs', { node: 'h1', hosts: ['h1'], args: { size: 100 } }), [['buf', { bytes: 100, access: ['remoteRead'] }]]);
  assert.throws(() => declaredRegions(b.source, 'r.mjs', { node: 'h1', hosts: ['h1'], args: { size: -1 } }), /app r\.mjs on h1: regions\(\): region "buf" needs bytes, an integer 0\.\.2\^30, got -1/);
  const random = bundleApp(module('q.mjs', `export const regions = () => ({ buf: { bytes: Math.floor(Math.random() * 9) } }); export default async () => {};`), 'q.mjs');
  assert.throws(() => declaredRegions(random.source, 'q.mjs', { node: 'h2', hosts: ['h2'], args: {} }), /app q\.mjs on h2: regions\(\) threw: .*Math\.random is not deterministic/);
});

test('a TypeScript app is type-checked against rocelab/app: a type error is refused with file:line:col', () => {
  const good = module('good.ts', `import type { Rdma, Regions } from 'rocelab/app';\nexport const regions: Regions = () => ({ b: { bytes: 8 } });\nexport default async function (rdma: Rdma): Promise<void> { await rdma.sleep(rdma.us(1)); }\n`);
  assert.ok(bundleApp(good, 'good.ts').source.includes('__rocelab_tick'));
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

test('a bundle’s digest does not depend on where its module lives (a container mounts the directory elsewhere)', () => {
  const text = 'export default async (rdma) => rdma.log("same");\n';
  const elsewhere = mkdtempSync(join(tmpdir(), 'rocelab-app-elsewhere-'));
  writeFileSync(join(elsewhere, 'same.mjs'), text);
  assert.equal(bundleApp(module('same.mjs', text), 'same.mjs').digest, bundleApp(join(elsewhere, 'same.mjs'), 'same.mjs').digest);
});
