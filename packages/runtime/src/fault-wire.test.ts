import assert from 'node:assert/strict';
import { test } from 'node:test';
import { faultItemSchema, schemaValidator } from '@rocelab/topology';
import type { Fault } from '@rocelab/wire';
import { CLEAR_KIND, clearToWire, FaultLogError, faultLogEntries, faultPayload, FaultPayloadError, faultToWire } from './fault-wire.js';
import { onePod } from './testing.js';

const pod = onePod(`faults:
  - {at: 1ms, kind: kill, node: h1, for: 2ms}
  - {at: 1500us, kind: linkDown, link: h2:p0}
`);

test('a fault record\'s spec reads back as the item as drawn; a clear\'s as the fault it undoes, its time and its item', () => {
  const kill = pod.faults[0]!;
  const item = { at: '1000000000ps', kind: 'kill', node: 'h1', for: '2ms' };
  assert.deepEqual(faultPayload(faultToWire(kill)), { item, clears: null }, 'its time as the record has it');
  const clear = clearToWire(1.2e9, kill);
  assert.equal(clear.kind, CLEAR_KIND);
  assert.deepEqual(faultPayload(clear), { item, clears: { fault: 0, atPs: 1e9 } });
  // A log written by hand may leave the kind and the time out of the spec: they are the record's.
  assert.deepEqual(faultPayload({ id: 0, atPs: 5, kind: 'nicPauseStorm', target: 'h1', spec: '{"node":"h1"}' }).item, { node: 'h1', kind: 'nicPauseStorm', at: '5ps' });
});

test('the fault item schema is the build\'s standalone code: a member reading its first fault compiles nothing', () => {
  assert.equal(schemaValidator(faultItemSchema()).source, 'precompiled');
});

test('a spec that is not what its kind carries is refused with the fault, the field and what was expected', () => {
  const fault = (kind: string, spec: string): Fault => ({ id: 3, atPs: 1e9, kind, target: 'h1', spec });
  const refusal = (f: Fault) => {
    try {
      faultPayload(f);
    } catch (err) {
      assert.ok(err instanceof FaultPayloadError);
      return err.message;
    }
    return assert.fail('accepted');
  };
  assert.equal(refusal(fault('kill', '{"at":')), 'fault 3: spec: expected the fault as JSON, got "{\\"at\\":"');
  assert.match(refusal(fault('meteor', '{"at":"1ms","kind":"kill","node":"h1"}')), /^fault 3: spec\.kind: expected one of "linkDown", .*, got "meteor"$/);
  assert.equal(refusal(fault('kill', '{}')), "fault 3: spec.node: expected a node name, or one drawn from the pod's seed: {random: [leaf1, tor2]} or {random: switch} (required), got nothing");
  assert.equal(refusal(fault(CLEAR_KIND, '{"at":1000000000,"raw":{"at":"1ms","kind":"kill","node":"h1"}}')), 'fault 3: spec.clears: expected the number of the fault it clears (an integer ≥ 0), got nothing');
  assert.equal(refusal(fault(CLEAR_KIND, '{"clears":0,"at":"1ms","raw":{"at":"1ms","kind":"kill","node":"h1"}}')), 'fault 3: spec.at: expected the cleared fault\'s time in ps (an integer ≥ 0), got "1ms"');
  assert.match(refusal(fault(CLEAR_KIND, '{"clears":0,"at":1000000000,"raw":{"at":"1ms","node":"h1"}}')), /^fault 3: spec\.raw(\.kind)?: expected .*kind.*, got nothing/);
  assert.match(refusal(fault('kill', '[1]')), /^fault 3: spec: expected a fault \{at, kind, …\}, got /);
});

test('a fault log written before typed payloads reads as it did: the same entries, the same payloads', () => {
  // As `rocelab run --json` wrote `faults` (and `rocelab up --fault-log` wrote its file) before this change.
  const old = `[{"id":0,"atPs":1000000000,"kind":"kill","target":"h1","spec":"{\\"at\\":\\"1ms\\",\\"kind\\":\\"kill\\",\\"node\\":\\"h1\\",\\"for\\":\\"2ms\\"}","source":"topology"},
{"id":1,"atPs":1500000000,"kind":"linkDown","target":"h2:p0","spec":"{\\"at\\":\\"1500us\\",\\"kind\\":\\"linkDown\\",\\"link\\":\\"h2:p0\\"}","source":"topology"},
{"id":2,"atPs":1200000000,"kind":"clear","target":"h1","spec":"{\\"clears\\":0,\\"at\\":1000000000,\\"raw\\":{\\"at\\":\\"1ms\\",\\"kind\\":\\"kill\\",\\"node\\":\\"h1\\",\\"for\\":\\"2ms\\"}}","source":"live"}]`;
  const entries = faultLogEntries(JSON.parse(old));
  const written = [...pod.faults.map((f) => ({ ...faultToWire(f), source: 'topology' as const })), { ...clearToWire(1.2e9, pod.faults[0]!), source: 'live' as const }];
  // A clear took a number of its own then (2); it has its fault's now (0): the rest is the same.
  assert.deepEqual(entries, written.map((e) => (e.kind === CLEAR_KIND ? { ...e, id: 2 } : e)), 'the records this build writes are the records of the old log');
  assert.equal(JSON.stringify(written), old.replace(/\n/g, '').replace('{"id":2,', '{"id":0,'), 'byte for byte');
  assert.deepEqual(faultPayload(entries[2]!).clears, { fault: 0, atPs: 1e9 });
});

test('a fault log entry whose spec does not fit is refused with its index, before any run', () => {
  const entry = { id: 0, atPs: 1e9, kind: 'kill', target: 'h1', spec: '{"at":"1ms","kind":"kill","node":"h1","color":"red"}', source: 'live' };
  assert.throws(() => faultLogEntries([entry]), (err: unknown) => err instanceof FaultLogError && err.message === 'faults[0].spec.color: expected one of the keys at, kind, for, node, got unknown key "color"');
  assert.throws(() => faultLogEntries([{ ...entry, spec: 'nope' }]), (err: unknown) => err instanceof FaultLogError && err.message === 'faults[0].spec: expected the fault as JSON, got "nope"');
});
