import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FLOW_ID_SLOT, FLOW_ID_WORKLOAD } from './flow-id.js';
import type { IncastWorkload } from './incast-schema.js';
import { incastSenders } from './incast.js';
import { drain } from './testing.js';

const HOSTS = ['h9', 'h3', 'h1', 'h2'];
const US = 1_000_000;

const incast = (fields: Partial<IncastWorkload> = {}): IncastWorkload => ({ kind: 'incast', index: 1, to: 'h9', from: ['h3', 'h1', 'h2'], sizeBytes: 1000, startPs: 10 * US, staggerPs: 2 * US, transport: 'rdma', dscp: 26, ...fields });

test('staggered starts: sender i of the list at start + i·stagger, slot i', () => {
  const got = ['h3', 'h1', 'h2'].map((h) => drain(h, [incast()], HOSTS));
  assert.deepEqual(got.map((posts) => posts.map((p) => [p.atPs, p.to, p.connection, p.sizeBytes, p.flow])), [
    [[10 * US, 'h9', 'w1:h3->h9', 1000, FLOW_ID_WORKLOAD + 0 * FLOW_ID_SLOT]],
    [[12 * US, 'h9', 'w1:h1->h9', 1000, FLOW_ID_WORKLOAD + 1 * FLOW_ID_SLOT]],
    [[14 * US, 'h9', 'w1:h2->h9', 1000, FLOW_ID_WORKLOAD + 2 * FLOW_ID_SLOT]],
  ]);
  assert.deepEqual(drain('h9', [incast()], HOSTS), [], 'the receiver sends nothing');
});

test('without stagger every sender starts at once; `all` is every other host, sorted', () => {
  assert.deepEqual(incastSenders(incast({ from: 'all' }), HOSTS), ['h1', 'h2', 'h3']);
  const all = incast({ from: 'all', staggerPs: 0 });
  assert.deepEqual(['h1', 'h2', 'h3'].map((h) => drain(h, [all], HOSTS)[0]!.atPs), [10 * US, 10 * US, 10 * US]);
  assert.deepEqual(['h1', 'h2', 'h3'].map((h) => drain(h, [all], HOSTS)[0]!.flow - FLOW_ID_WORKLOAD), [0, 1, 2].map((s) => s * FLOW_ID_SLOT));
});
