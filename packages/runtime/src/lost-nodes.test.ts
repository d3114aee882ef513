import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTopology } from '@rocelab/topology';
import type { Fault } from '@rocelab/wire';
import { clearToWire, faultToWire, type FaultLogEntry } from './fault-wire.js';
import { lostNodesOf, mergeLostNodes, nodeLifeProblems, type LostNode } from './lost-nodes.js';

const entry = (id: number, atPs: number, kind: string, target: string, raw: Record<string, unknown>, source: 'topology' | 'live' = 'topology'): FaultLogEntry => ({
  id,
  atPs,
  kind,
  target,
  spec: JSON.stringify(raw),
  source,
});

test('every kill of the fault log that applied, with when its node came back (for, restart, clear) or null', () => {
  const log = [
    entry(0, 1e9, 'kill', 'sw1', { at: '1ms', kind: 'kill', node: 'sw1', for: '2ms' }),
    entry(1, 2e9, 'kill', 'h1', { at: '2ms', kind: 'kill', node: 'h1' }),
    entry(2, 1e9, 'linkDown', 'h2:p0', { at: '1ms', kind: 'linkDown', link: 'h2:p0' }),
    entry(3, 4e9, 'restart', 'h1', { at: '4ms', kind: 'restart', node: 'h1' }),
    entry(4, 5e9, 'kill', 'h2', { at: '5ms', kind: 'kill', node: 'h2', for: '10ms' }, 'live'),
    entry(5, 6e9, 'clear', 'h2', { clears: 4, at: 5e9, raw: { at: '5ms', kind: 'kill', node: 'h2', for: '10ms' } }, 'live'),
    entry(6, 7e9, 'kill', 'h3', { at: '7ms', kind: 'kill', node: 'h3', for: '5ms' }),
    entry(7, 20e9, 'kill', 'h4', { at: '20ms', kind: 'kill', node: 'h4' }),
  ];
  assert.deepEqual(lostNodesOf(log, 10e9), [
    { node: 'sw1', atNs: 1e6, cause: 'fault', restartedAtNs: 3e6 },
    { node: 'h1', atNs: 2e6, cause: 'fault', restartedAtNs: 4e6 },
    { node: 'h2', atNs: 5e6, cause: 'fault', restartedAtNs: 6e6 },
    // Restarted at 12 ms, after the run's end: dead to the end of this run.
    { node: 'h3', atNs: 7e6, cause: 'fault', restartedAtNs: null },
  ]);
  assert.deepEqual(lostNodesOf(log.slice(2, 3), 10e9), []);
});

test('other causes merge into one list by time, then node', () => {
  const lost: LostNode[] = [{ node: 'sw2', atNs: 2e6, cause: 'lost', restartedAtNs: null }];
  const killed: LostNode[] = [
    { node: 'sw1', atNs: 2e6, cause: 'fault', restartedAtNs: null },
    { node: 'h1', atNs: 1e6, cause: 'fault', restartedAtNs: 1.5e6 },
  ];
  assert.deepEqual(
    mergeLostNodes(killed, lost).map((n) => `${n.node}/${n.cause}`),
    ['h1/fault', 'sw1/fault', 'sw2/lost'],
  );
});

test('the fault API asks whether one more fault or clear fits the log: a kill of a dead node, a restart too soon', () => {
  const pod = parseTopology(
    `name: api
defaults:
  link: {rate: 40G, latency: 1us, mtu: 1024}
nodes:
  - {name: sw1, role: tor, subnet: 10.0.1.0/24}
  - {name: h1, role: host, ip: 10.0.1.1}
links:
  - {a: h1:p0, b: sw1:p1}
faults:
  - {at: 1ms, kind: kill, node: sw1}
`,
    'api.yaml',
  );
  const log = pod.faults.map((f) => ({ ...faultToWire(f), source: 'topology' as const }));
  const live = (id: number, atPs: number, kind: string, raw: Record<string, unknown>): Fault => ({ id, atPs, kind, target: String(raw.node), spec: JSON.stringify({ at: `${atPs}ps`, kind, ...raw }) });
  assert.deepEqual(nodeLifeProblems(pod, log, live(1, 2e9, 'kill', { node: 'sw1' })), ['fault.at: expected a time when sw1 is alive (a kill needs a living node), got 2ms: sw1 is dead since 1ms (fault 0)']);
  assert.deepEqual(nodeLifeProblems(pod, log, live(1, 2e9, 'restart', { node: 'h1' })), ['fault.at: expected a time when h1 is dead (a restart boots a killed node), got 2ms: h1 is alive']);
  assert.match(nodeLifeProblems(pod, log, live(1, 1e9 + 1000, 'restart', { node: 'sw1' }))[0]!, /^fault\.at: expected a restart at least 1\.2244us after the kill .*, got 1ns after its kill at 1ms$/);
  assert.deepEqual(nodeLifeProblems(pod, log, live(1, 2e9, 'restart', { node: 'sw1' })), []);
  assert.deepEqual(nodeLifeProblems(pod, log, live(1, 2e9, 'linkDown', { link: 'h1:p0' })), [], 'other kinds are not its business');
  // A clear of the kill is a restart at the clear's time.
  const clear = clearToWire(1e9 + 1000, pod.faults[0]!);
  assert.match(nodeLifeProblems(pod, log, clear)[0]!, /^fault\.at: expected a clear at least 1\.2244us after the kill/);
  assert.deepEqual(nodeLifeProblems(pod, log, clearToWire(3e9, pod.faults[0]!)), []);
});
