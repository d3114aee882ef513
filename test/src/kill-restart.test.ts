/**
 * The `kill` and `restart` faults through the CLI in every process mode: a switch reboot and a
 * host crash give the same trace hash, the same counts and the same lost nodes inproc, with one
 * process per node and with two workers — the deaths are engine events, not process events.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunResult } from '@rocelab/runtime';
import { cli, fixture } from './harness.js';

const FILE = fixture('kill-restart.yaml');
const MODES = [[], ['--mode', 'procs'], ['--workers', '2'], ['--threads', '2']];

function run(args: string[]): RunResult {
  const r = cli(['run', FILE, ...args, '--json'], {}, 300_000);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(r.json !== null, r.stdout);
  return r.json;
}

/** What must not depend on the mapping of nodes to processes. */
const outcome = (r: RunResult) => ({ traceHash: r.traceHash, events: r.events, packets: r.packets, droppedByReason: r.droppedByReason, lostNodes: r.lostNodes, flows: r.flows.map((f) => [f.from, f.to, f.status, f.deliveredBytes]) });

test('kill-restart.yaml: the same trace hash, counts and lost nodes inproc, in procs, with 2 workers and with 2 threads; conservation holds with node_lost', { timeout: 600_000 }, () => {
  const results = MODES.map((mode) => run(['--duration', '15ms', ...mode]));
  const [inproc] = results;
  for (const [i, r] of results.entries()) {
    assert.equal(r.conservation, true, `${MODES[i]!.join(' ') || 'inproc'}`);
    assert.equal(r.causalityViolations, 0);
    assert.deepEqual(outcome(r), outcome(inproc!), `${MODES[i]!.join(' ') || 'inproc'} differs from inproc`);
  }
  const r = inproc!;
  assert.ok(r.droppedByReason.node_lost > 0, 'sw2 and h2 lost what they held and what reached them dead');
  assert.ok(r.droppedByReason.misdelivered > 0, "h4's retransmissions reach the rebooted h2, which has no queue pair for them");
  assert.deepEqual(r.lostNodes, [
    { node: 'sw2', atNs: 200_000, cause: 'fault', restartedAtNs: 500_000 },
    { node: 'h2', atNs: 1_000_000, cause: 'fault', restartedAtNs: 3_000_000 },
  ]);
  const status = Object.fromEntries(r.flows.map((f) => [`${f.from}>${f.to}`, f.status]));
  assert.deepEqual(status, {
    'h1>h3': 'success', // through the rebooted sw2: go-back-N
    'h4>h2': 'retryExceeded', // to a host that crashed: retry_cnt exhausted
    'h2>h4': 'lost', // its sender crashed
  });
  assert.equal(r.flowTotals.failed, 2);
});

test('mid-run, with frames still queued, the audit holds the same way in every mode; the text summary lists the lost nodes', { timeout: 300_000 }, () => {
  const [inproc, workers] = [[], ['--workers', '2']].map((mode) => run(['--duration', '1100us', ...mode]));
  assert.ok(inproc!.packets.queued > 0);
  assert.deepEqual(outcome(workers!), outcome(inproc!));
  assert.equal(inproc!.conservation, true);
  assert.deepEqual(
    inproc!.lostNodes.map((n) => [n.node, n.restartedAtNs]),
    [
      ['sw2', 500_000],
      ['h2', null], // its restart at 3 ms is after this run's end
    ],
  );
  const text = cli(['run', FILE, '--duration', '1100us']);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^node sw2 killed at 0\.200 ms, restarted at 0\.500 ms$/m);
  assert.match(text.stdout, /^node h2 killed at 1\.000 ms, not restarted$/m);
});
