// An app is untrusted code (issue 22): every way out of its sandbox that worked against the
// `vm` context it used to run in, tried again; each ends the app with a clear error, and the
// host saw nothing but the app's failure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sandbox } from './sandbox-harness.js';
import { DEFAULT_APP_LIMITS } from './sandbox.js';

/** Runs `body` as an app's first statements; the app's outcome. */
async function attempt(body: string, limits = DEFAULT_APP_LIMITS) {
  const { h, s } = await sandbox(`export default async function (rdma) {\n${body}\n}`, limits);
  s.start();
  return h;
}

const PROCESS = /'process' is not defined/;

const ESCAPES: Array<[string, string, RegExp]> = [
  ['the global object', `globalThis.constructor.constructor('return process')().exit(0);`, PROCESS],
  ['rdma.args', `rdma.args.constructor.constructor('return process')();`, PROCESS],
  ['a counter’s inc', `rdma.counter('c', 'help').inc.constructor('return process')();`, PROCESS],
  ['rdma.region(…)', `rdma.region('buf').constructor.constructor('return process')();`, PROCESS],
  ['a region’s bytes', `rdma.region('buf').bytes.constructor.constructor('return process')();`, PROCESS],
  ['rdma.remote(…)', `rdma.remote('h2', 'buf').constructor.constructor('return process')();`, PROCESS],
  ['.at(0)', `rdma.remote('h2', 'buf').at(0).constructor.constructor('return process')();`, PROCESS],
  ['an Error the API threw', `try { rdma.region('nope'); } catch (e) { e.constructor.constructor('return process')(); }`, PROCESS],
  ['process.exit', `process.stdout.write('{"forged": true}'); process.exit(0);`, PROCESS],
  // Written so the bundler cannot see them (it refuses Node modules it can see): the sandbox itself must.
  ['require', `globalThis['req' + 'uire'](['node', 'child_process'].join(':')).execSync('id');`, /not a function/],
  ['import()', `await import(['node', 'fs'].join(':'));`, /could not load module 'node:fs'/],
];

for (const [route, body, expected] of ESCAPES) {
  test(`escape through ${route}: nothing of Node is there; the app fails with the error and the host saw only that`, async () => {
    const h = await attempt(body);
    assert.equal(h.status, 'failed', route);
    assert.match(h.error!, /^app t\.mjs on h1: threw: /);
    assert.match(h.error!, expected);
    assert.deepEqual([h.posts.length, Object.keys(h.reports).length], [0, 0]);
  });
}

const CLOCKS: Array<[string, string, RegExp]> = [
  ['Date.now()', `Date.now();`, /Date reads the wall clock and the machine's time zone: use rdma\.now\(\)/],
  ['new Date(0).constructor.now()', `new Date(0).constructor.now();`, /Date reads the wall clock.*use rdma\.now\(\)/],
  ['Date()', `Date();`, /use rdma\.now\(\)/],
  ['Intl time formatting', `Intl.DateTimeFormat().format();`, /Intl formats with the machine's locale, time zone and clock/],
  ['performance.now()', `performance.now();`, /performance reads the wall clock: use rdma\.now\(\)/],
  ['Math.random()', `Math.random();`, /Math\.random is not deterministic: use rdma\.random\(\)/],
  ['Atomics.wait', `Atomics.wait(new Int32Array(4), 0, 0, 1000);`, /Atomics wait on memory shared between threads; an app has one: await rdma\.sleep\(\)/],
  ['SharedArrayBuffer', `new SharedArrayBuffer(8);`, /SharedArrayBuffer is memory shared between threads.*use ArrayBuffer/],
  ['WeakRef', `new WeakRef({});`, /WeakRef observes garbage collection.*keep a Map/],
  ['FinalizationRegistry', `new FinalizationRegistry(() => {});`, /FinalizationRegistry observes garbage collection/],
  ['setTimeout', `setTimeout(() => {}, 10);`, /timers run on the wall clock: await rdma\.sleep\(ps\)/],
];

for (const [use, body, expected] of CLOCKS) {
  test(`${use} is refused with what to use instead`, async () => {
    const h = await attempt(body);
    assert.equal(h.status, 'failed', use);
    assert.match(h.error!, expected);
  });
}

test('a region cannot be taken from the NIC: transfer() of its buffer is refused', async () => {
  const h = await attempt(`rdma.region('buf').bytes.buffer.transfer();`);
  assert.match(h.error!, /a region stays where it was registered: transfer\(\) would take it from the NIC/);
  const own = await attempt(`rdma.report('moved', new ArrayBuffer(8).transfer().byteLength);`);
  assert.deepEqual([own.status, own.reports.moved], ['finished', 8], 'an ArrayBuffer of the app’s own still transfers');
});

const STEPS = { ...DEFAULT_APP_LIMITS, steps: 30_000_000 };
const MEMORY = { ...DEFAULT_APP_LIMITS, memoryBytes: 16 * 1024 * 1024 };
const STOPPED = /ran 30,000,000 steps of its interpreter without waiting for the fabric \(an endless loop\?\); stopped \(app\.steps raises the limit\)/;
const OUT_OF_MEMORY = /^app t\.mjs on h1: ran out of its 16 MiB of memory; stopped \(app\.memory raises the limit\)/;

const HOGS: Array<[string, string, typeof DEFAULT_APP_LIMITS, RegExp]> = [
  ['a catastrophic regex', `/^(a+)+$/.test('a'.repeat(40) + 'b');`, STEPS, STOPPED],
  // Built-ins written in C count too: the array is made well within the budget, the sort and the parse run out of it.
  ['a sort (no comparator: QuickJS sorts in C)', `const a = Array.from({ length: 3e5 }, (_, i) => (i * 7919) % 1000003); rdma.log('sorting'); a.sort();`, STEPS, STOPPED],
  ['JSON.parse of 2 MB', `const text = '[' + '1,'.repeat(1e6) + '1]'; rdma.log('parsing'); JSON.parse(text);`, STEPS, STOPPED],
  ['an endless loop in a catch', `for (;;) { try { for (;;); } catch {} }`, STEPS, STOPPED],
  ['JSON.parse of 60 MB', `JSON.parse('[' + '0,'.repeat(30e6) + '0]');`, MEMORY, OUT_OF_MEMORY],
  ['new Array(1e9).fill(0)', `new Array(1e9).fill(0);`, MEMORY, OUT_OF_MEMORY],
  ['3 GiB of typed arrays', `const keep = []; for (let i = 0; i < 48; i++) keep.push(new Uint8Array(64 << 20));`, MEMORY, OUT_OF_MEMORY],
  ['an allocation loop', `const keep = []; for (;;) keep.push({ pad: 'x'.repeat(1000) + keep.length });`, MEMORY, OUT_OF_MEMORY],
  ['a recursion without end', `const f = (n) => f(n + 1) + 1; f(0);`, STEPS, /recursed deeper than its stack allows/],
];

for (const [hog, body, limits, expected] of HOGS) {
  test(`${hog} is stopped by the app's limits, with an error naming the limit`, async () => {
    const h = await attempt(body, limits);
    assert.equal(h.status, 'failed', hog);
    assert.match(h.error!, expected);
  });
}

test('an app that catches the out-of-memory error and allocates on is stopped all the same', async () => {
  const h = await attempt(`for (;;) { try { const keep = []; for (;;) keep.push(new Uint8Array(1 << 20)); } catch (e) { rdma.log(String(e)); } }`, { ...MEMORY, steps: 30_000_000 });
  assert.equal(h.status, 'failed');
  assert.match(h.error!, /ran 30,000,000 steps/);
  assert.ok(h.log.length > 1, 'it did catch the error, more than once');
});

test('the sort and the parse were stopped in the built-in, not before it', async () => {
  for (const [body, mark] of [
    [`const a = Array.from({ length: 3e5 }, (_, i) => (i * 7919) % 1000003); rdma.log('sorting'); a.sort();`, 'sorting'],
    [`const text = '[' + '1,'.repeat(1e6) + '1]'; rdma.log('parsing'); JSON.parse(text);`, 'parsing'],
  ] as const) {
    const h = await attempt(body, STEPS);
    assert.deepEqual(h.log, [mark], body);
    assert.match(h.error!, STOPPED);
  }
});
