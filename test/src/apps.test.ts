/**
 * Your own RDMA code (issue 13), end to end through `rocelab run`: the examples give the same
 * trace hash as local processes as in one process, atomic-counter ends at exactly 16,000 (and
 * not without the cache of atomic replies), random bytes written and read back across a lossy
 * Clos all match, and apps that throw, spin, use a wrong rkey or reach for `Math.random` are
 * stopped with an error naming the app, the node and the operation while the pod runs on.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { AppReport } from '@rocelab/results';
import type { RunResult } from '@rocelab/runtime';
import { cli, fixture, ROOT } from './harness.js';

function run(file: string, duration: string, mode: 'inproc' | 'procs' = 'inproc', status = 0) {
  const r = cli(['run', file, '--duration', duration, '--mode', mode, '--json'], {}, 300_000);
  assert.equal(r.status, status, r.stderr);
  assert.ok(r.json !== null, r.stdout);
  assert.ok(r.json.conservation, `${file} (${mode}): every packet delivered, dropped with a reason or queued`);
  return r.json;
}

const example = (name: string, file = 'pod.yaml'): string => join(ROOT, 'examples', name, file);
const appOf = (apps: AppReport[], node: string): AppReport => apps.find((a) => a.node === node)!;

/** Every example pod: its command, and what its apps must report. */
const EXAMPLES: Array<{ name: string; file?: string; duration: string; check(apps: AppReport[], result: RunResult): void }> = [
  {
    name: 'rdma-hello',
    duration: '20us',
    check: (apps) => assert.ok((appOf(apps, 'h1').reports.latencyUs as number) > 0),
  },
  {
    name: 'atomic-counter',
    duration: '6ms',
    check: (apps) => {
      assert.equal(appOf(apps, 'h17').reports.counter, 16_000);
      assert.equal(apps.filter((a) => a.reports.adds === 1000).length, 16);
    },
  },
  {
    name: 'kv-read',
    duration: '2ms',
    check: (apps) => {
      for (const c of clients(apps, 'h1')) {
        assert.deepEqual([c.reports.lookups, c.reports.mismatches], [150, 0], c.node);
        assert.ok((c.reports.p99Us as number) < 10, `${c.node}: idle P99 ${c.reports.p99Us} µs`);
      }
    },
  },
  {
    name: 'kv-read',
    file: 'incast.yaml',
    duration: '2ms',
    check: (apps, r) => {
      for (const c of clients(apps, 'h1')) {
        assert.equal(c.reports.mismatches, 0, c.node);
        assert.ok((c.reports.p99Us as number) > 40, `${c.node}: P99 ${c.reports.p99Us} µs behind the incast`);
        assert.ok((c.reports.p50Us as number) < 10, `${c.node}: P50 ${c.reports.p50Us} µs, as idle`);
      }
      assert.equal(r.flowTotals.completed, r.flowTotals.total, 'the incast completed');
    },
  },
  {
    name: 'sst',
    duration: '1ms',
    check: (apps) => {
      for (const a of apps) {
        assert.deepEqual([a.reports.regressions, a.reports.pushes], [0, 250], a.node);
        assert.ok((a.reports.barrierP99Us as number) < 5 && (a.reports.updatesPerSec as number) > 1e6, JSON.stringify(a.reports));
      }
    },
  },
  {
    name: 'sst',
    file: 'batch1000.yaml',
    duration: '1ms',
    check: (apps) => {
      for (const a of apps) {
        assert.deepEqual([a.reports.regressions, a.reports.pushes], [0, 10], a.node);
        // Batching: far more updates per second than batch 1's ~1.9 M, each seen far later than its ~4.3 µs.
        assert.ok((a.reports.updatesPerSec as number) > 20e6 && (a.reports.seenP50Us as number) > 20, JSON.stringify(a.reports));
      }
    },
  },
  {
    name: 'sst',
    file: 'shuffle.yaml',
    duration: '1ms',
    check: (apps, r) => {
      for (const a of apps) {
        assert.equal(a.reports.regressions, 0, a.node);
        assert.ok((a.reports.barrierP50Us as number) > 4.5, `${a.node}: barrier P50 ${a.reports.barrierP50Us} µs beside the shuffle (idle 4.3)`);
      }
      assert.equal(r.flowTotals.completed, r.flowTotals.total, 'the shuffle completed');
    },
  },
];

const clients = (apps: AppReport[], server: string): AppReport[] => apps.filter((a) => a.node !== server);

for (const ex of EXAMPLES) {
  const file = ex.file ?? 'pod.yaml';
  test(`example ${ex.name}/${file}: every app finishes, with the same trace hash in procs as inproc`, () => {
    const inproc = run(example(ex.name, file), ex.duration);
    for (const a of inproc.apps) assert.equal(a.status, 'finished', `${a.node}: ${a.error}`);
    ex.check(inproc.apps, inproc);
    const procs = run(example(ex.name, file), ex.duration, 'procs');
    assert.equal(procs.traceHash, inproc.traceHash);
    assert.deepEqual(procs.apps, inproc.apps, 'the apps did, reported and logged the same');
  });
}

test('atomic-counter without the cache of atomic replies: retried atomics are applied twice, so the count overshoots 16,000', () => {
  const r = run(example('atomic-counter', 'pod-no-cache.yaml'), '6ms');
  const counter = appOf(r.apps, 'h17').reports.counter as number;
  assert.ok(counter > 16_000, `counter ${counter}`);
  assert.ok(r.summary.hostTotals.retransmittedPackets > 0);
});

test('random bytes written with WRITE and read back with READ across a Clos with a lossy link all match', () => {
  const r = run(fixture('apps/write-read-back.yaml'), '20ms');
  assert.equal(r.apps.length, 4);
  for (const a of r.apps) {
    assert.equal(a.status, 'finished', `${a.node}: ${a.error}`);
    assert.equal(a.reports.mismatches, 0, a.node);
    assert.ok((a.reports.bytesChecked as number) > 200_000, `${a.node} checked ${a.reports.bytesChecked} bytes`);
  }
  assert.ok(r.droppedByReason.loss > 0 && r.summary.hostTotals.retransmittedPackets > 0, 'the lossy link lost packets and go-back-N resent them');
  const procs = run(fixture('apps/write-read-back.yaml'), '20ms', 'procs');
  assert.equal(procs.traceHash, r.traceHash);
  const workers = cli(['run', fixture('apps/write-read-back.yaml'), '--duration', '20ms', '--workers', '2', '--json'], {}, 300_000);
  assert.equal(workers.json?.traceHash, r.traceHash, 'and as two workers');
});

test('SENDs with immediates land in posted receives after RNR waits; unsignaled WRITEs and a WRITE with immediate arrive in order', () => {
  const r = run(fixture('apps/send-recv.yaml'), '1ms');
  for (const a of r.apps) assert.equal(a.status, 'finished', `${a.node}: ${a.error}`);
  const h1 = appOf(r.apps, 'h1');
  assert.deepEqual(h1.reports, { mismatches: 0, received: 6 });
  assert.equal(appOf(r.apps, 'h2').reports.signaledAfterUnsignaled, true);
  assert.ok(r.summary.hostTotals.naksReceived.rnr > 0, 'the first SENDs found no receive and were NAKed RNR');
});

test('apps that throw, spin, use a wrong rkey, READ out of bounds, SEND too much, lose their peer or call Math.random are stopped with errors naming app, node and operation; the pod runs on', () => {
  const r = run(fixture('apps/misbehave.yaml'), '2ms', 'inproc', 3);
  const error = (node: string): string => {
    const a = appOf(r.apps, node);
    assert.equal(a.status, 'failed', node);
    return a.error!;
  };
  assert.match(error('h1'), /^app misbehave\.mjs on h1: threw: Error: the app gave up/);
  assert.match(error('h2'), /^app misbehave\.mjs on h2: ran 200,000,000 steps of its interpreter without waiting for the fabric/);
  assert.match(error('h3'), /^app misbehave\.mjs on h3: write of 100 bytes to h4 at 0x10000000 \(rkey 0x15b\) failed: remote access error/);
  assert.match(error('h5'), /^app misbehave\.mjs on h5: Math\.random is not deterministic: use rdma\.random\(\)/);
  assert.match(error('h7'), /^app misbehave\.mjs on h7: read of 100 bytes from h4 at 0x10000ffa \(rkey 0x15a\) failed: remote access error/);
  assert.match(error('h8'), /^app misbehave\.mjs on h8: send of 200 bytes to h4 failed: remote invalid request/);
  assert.match(error('h9'), /^app misbehave\.mjs on h9: write of 8 bytes to h10 at 0x10000000 \(rkey 0x15a\) failed: transport retries exhausted/);
  assert.equal(appOf(r.apps, 'h2').finishedPs, 5_000_000, 'the spin is stopped at the virtual instant it began');
  const h4 = appOf(r.apps, 'h4');
  assert.equal(h4.status, 'finished');
  assert.equal(h4.reports.writes, 10);
  assert.equal(r.flowTotals.completed, 1, 'the built-in flow beside them completed');
  assert.equal(r.droppedByReason.qp_error, 3, 'the refused WRITE, READ and SEND are dropped with their reason');
  const procs = run(fixture('apps/misbehave.yaml'), '2ms', 'procs', 3);
  assert.equal(procs.traceHash, r.traceHash);
  assert.deepEqual(procs.apps, r.apps);
});

/** What each host of the hostile fixture tried (hostile.yaml), and the error it must end with. */
const ATTACKS: Array<[string, string, RegExp]> = [
  ['h3', 'the global object', /threw: ReferenceError: 'process' is not defined \(at global/],
  ['h4', 'rdma.args', /threw: ReferenceError: 'process' is not defined \(at args/],
  ['h5', 'a counter’s inc', /threw: ReferenceError: 'process' is not defined \(at counterInc/],
  ['h6', 'rdma.region(…)', /threw: ReferenceError: 'process' is not defined \(at region/],
  ['h7', 'a region’s bytes', /threw: ReferenceError: 'process' is not defined \(at regionBytes/],
  ['h8', 'rdma.remote(…)', /threw: ReferenceError: 'process' is not defined \(at remote/],
  ['h9', '.at(0)', /threw: ReferenceError: 'process' is not defined \(at at0/],
  ['h10', 'an Error the API threw', /threw: ReferenceError: 'process' is not defined \(at apiError/],
  ['h11', 'process.stdout and process.exit (a forged result)', /threw: ReferenceError: 'process' is not defined \(at forgeResult/],
  ['h12', 'require', /threw: TypeError: not a function \(at require/],
  ['h13', 'Date through a date’s constructor', /Date reads the wall clock and the machine's time zone: use rdma\.now\(\)/],
  ['h14', 'Intl time formatting', /Intl formats with the machine's locale, time zone and clock/],
  ['h15', 'Atomics.wait on shared memory', /SharedArrayBuffer is memory shared between threads; an app has one/],
  ['h16', 'a catastrophic regex', /ran 2,000,000 steps of its interpreter without waiting for the fabric \(an endless loop\?\); stopped \(app\.steps raises the limit\)/],
  ['h17', 'a sort of 300,000 numbers', /ran 2,000,000 steps of its interpreter/],
  ['h18', 'JSON.parse of 60 MB', /ran out of its 16 MiB of memory; stopped \(app\.memory raises the limit\)/],
  ['h19', 'new Array(1e9).fill(0)', /ran out of its 16 MiB of memory|ran 2,000,000 steps/],
  ['h20', '3 GiB of typed arrays', /ran out of its 16 MiB of memory/],
];

for (const mode of ['inproc', 'procs'] as const) {
  test(`hostile apps (${mode}): every escape, clock and hog ends its app with an error naming app, node and what it tried; the pod runs on and the run exits 3`, () => {
    const r = run(fixture('apps/hostile.yaml'), '1ms', mode, 3);
    for (const [node, what, expected] of ATTACKS) {
      const a = appOf(r.apps, node);
      assert.equal(a.status, 'failed', `${node} (${what}): ${JSON.stringify(a.reports)}`);
      assert.match(a.error!, new RegExp(`^app hostile\\.mjs on ${node}: `), node);
      assert.match(a.error!, expected, `${node} (${what})`);
      assert.equal(a.reports.escaped, undefined, `${node} (${what}) did not get past it`);
    }
    assert.deepEqual([appOf(r.apps, 'h2').status, appOf(r.apps, 'h2').reports.writes], ['finished', 5], 'the well-behaved app beside them finished');
    assert.equal(r.flowTotals.completed, 1, 'the built-in flow beside them completed');
    if (mode === 'procs') {
      const inproc = run(fixture('apps/hostile.yaml'), '1ms', 'inproc', 3);
      assert.equal(r.traceHash, inproc.traceHash, 'the same trace hash as in one process');
      assert.deepEqual(r.apps, inproc.apps, 'each app stopped at the same virtual instant with the same error');
      const workers = cli(['run', fixture('apps/hostile.yaml'), '--duration', '1ms', '--workers', '2', '--json'], {}, 300_000);
      assert.equal(workers.status, 3, workers.stderr);
      assert.equal(workers.json?.traceHash, inproc.traceHash, 'and as two workers');
      assert.deepEqual(workers.json?.apps, inproc.apps);
    }
  });
}

test('rocelab topology validate runs no app code: an app that spins at its top level and throws in regions() validates at once; rocelab run refuses it, exit 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-validate-app-'));
  writeFileSync(join(dir, 'bad.mjs'), `for (;;);\nexport const regions = () => { throw new Error('regions ran'); };\nexport default async () => {};\n`);
  writeFileSync(join(dir, 'pod.yaml'), 'name: v\nnodes:\n  - {name: h1, role: host, ip: 10.0.0.1, app: {module: bad.mjs, steps: 1000000}}\n  - {name: h2, role: host, ip: 10.0.0.2}\n  - {name: tor1, role: tor, subnet: 10.0.0.0/24}\nlinks:\n  - {a: h1:p0, b: tor1:p1}\n  - {a: h2:p0, b: tor1:p2}\n');
  const started = Date.now();
  const valid = cli(['topology', 'validate', join(dir, 'pod.yaml')]);
  assert.equal(valid.status, 0, valid.stderr);
  assert.match(valid.stdout, /app bad\.mjs on h1: bundled and type-checked, not run \(an app is code/);
  assert.ok(Date.now() - started < 60_000);
  const run = cli(['run', join(dir, 'pod.yaml'), '--duration', '10us']);
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /pod\.yaml: nodes\[0\]\.app: expected an app whose regions\(\) declares \{name: \{bytes, access\}\} for its host, got app bad\.mjs on h1 \(regions\): ran 1,000,000 steps of its interpreter/);
});
