import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '@rocelab/sim';
import { FLOW_ID_WORKLOAD } from './flow-id.js';
import { hostTraffic } from './host-traffic.js';
import { contextFor, drain } from './testing.js';
import type { ResolvedFlow } from './workloads.js';

const HOSTS = ['h1', 'h2', 'h3'];
const US = 1_000_000;

function flow(fields: Partial<ResolvedFlow> = {}): ResolvedFlow {
  return { kind: 'flow', index: 2, from: 'h1', to: 'h2', sizeBytes: 10, start: { kind: 'at', atPs: 5 * US }, rateBps: null, dscp: 26, transport: 'rdma', ...fields };
}

test('flow without messageBytes: one WRITE of the whole size, flow id index·2^40', () => {
  assert.deepEqual(drain('h1', [flow()], HOSTS), [{ atPs: 5 * US, to: 'h2', connection: 'w2:h1->h2', opcode: 'write', sizeBytes: 10, flow: 2 * FLOW_ID_WORKLOAD, probe: false }]);
  assert.deepEqual(drain('h2', [flow()], HOSTS), [], 'the receiver posts nothing');
});

test('flow with messageBytes: equal messages back to back on one connection, the remainder last', () => {
  const posts = drain('h1', [flow({ sizeBytes: 10, messageBytes: 4, opcode: 'send' })], HOSTS);
  assert.deepEqual(posts.map((p) => p.sizeBytes), [4, 4, 2]);
  assert.deepEqual(posts.map((p) => p.flow - 2 * FLOW_ID_WORKLOAD), [0, 1, 2]);
  assert.ok(posts.every((p) => p.atPs === 5 * US && p.connection === 'w2:h1->h2' && p.opcode === 'send'));
  // An exact multiple has no short message; a 0-byte flow is one empty message.
  assert.deepEqual(drain('h1', [flow({ sizeBytes: 12, messageBytes: 4 })], HOSTS).map((p) => p.sizeBytes), [4, 4, 4]);
  assert.deepEqual(drain('h1', [flow({ sizeBytes: 0, messageBytes: 4 })], HOSTS).map((p) => p.sizeBytes), [0]);
  // The livelock fixture's shape: 1 MiB messages.
  const mib = drain('h1', [flow({ sizeBytes: 8 * 1048576 + 1, messageBytes: 1048576 })], HOSTS);
  assert.equal(mib.length, 9);
  assert.equal(mib.at(-1)!.sizeBytes, 1);
});

test('a uniform start is one uniformInt draw from the sender\'s stream workload:<index>', () => {
  const uniform = flow({ start: { kind: 'uniform', minPs: 0, maxPs: 500 * US } });
  const expected = new Rng(7, 'h1', 'workload:2').uniformInt(0, 500 * US);
  assert.equal(drain('h1', [uniform], HOSTS, { seed: 7 })[0]!.atPs, expected);
  assert.notEqual(drain('h1', [uniform], HOSTS, { seed: 8 })[0]!.atPs, expected);
});

test('connections carry the flow\'s rate and DSCP, and nothing is drawn to list them', () => {
  const ctx = contextFor('h1', HOSTS);
  const traffic = hostTraffic('h1', [flow({ rateBps: 10e9, dscp: 10, start: { kind: 'uniform', minPs: 0, maxPs: 9 } })], ctx);
  assert.deepEqual(traffic.connections(), [{ key: 'w2:h1->h2', to: 'h2', probe: false, dscp: 10, transport: 'rdma', rateBps: 10e9 }]);
  const fresh = new Rng(1, 'h1', 'workload:2');
  assert.equal(ctx.rng('workload:2').nextU32(), fresh.nextU32(), 'the stream is untouched');
});
