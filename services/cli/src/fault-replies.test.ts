import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clearedReply, errorOfReply, faultListReply, FaultReplyError, faultViewReply } from './fault-replies.js';

const view = { id: 2, kind: 'kill', target: 'h1', source: 'live', atNs: 1000, untilNs: null, state: 'scheduled', raw: { at: '1000000ps', kind: 'kill', node: 'h1' } };

test('the fault API\'s replies are read as they are sent, extra keys (a list\'s log) let through', () => {
  assert.deepEqual(faultViewReply(view, 'POST /faults'), view);
  assert.deepEqual(faultListReply({ virtualPs: 5, faults: [view], log: [] }, 'GET /faults'), { virtualPs: 5, faults: [view] });
  assert.deepEqual(clearedReply({ id: 2, cleared: 'undone', atPs: 7 }, 'DELETE /faults/2', false), [{ id: 2, cleared: 'undone', atPs: 7 }]);
  assert.deepEqual(clearedReply({ cleared: [{ id: 2, cleared: 'withdrawn' }] }, 'DELETE /faults', true), [{ id: 2, cleared: 'withdrawn' }]);
  assert.equal(errorOfReply({ error: 'no fault 7' }), 'no fault 7');
  assert.equal(errorOfReply('x'), null);
});

test('a reply that is not what the call answers is refused with the call and the field', () => {
  const refused = (f: () => unknown, message: string) => assert.throws(f, (err: unknown) => err instanceof FaultReplyError && err.message === message);
  refused(() => faultViewReply({ ...view, state: 'gone' }, 'POST /faults'), 'POST /faults.state: expected a fault view {id, kind, target, source, atNs, untilNs, state, raw} from the controller, got "gone"');
  refused(() => faultViewReply([], 'POST /faults'), 'POST /faults: expected a fault view {id, kind, target, source, atNs, untilNs, state, raw} from the controller, got []');
  refused(() => faultListReply({ virtualPs: 5, faults: [{ ...view, atNs: '1' }] }, 'GET /faults'), 'GET /faults: faults[0].atNs: expected a fault view {id, kind, target, source, atNs, untilNs, state, raw} from the controller, got "1"');
  refused(() => faultListReply({ faults: [] }, 'GET /faults'), 'GET /faults: expected a fault list {virtualPs, faults} from the controller, got {"faults":[]}');
  refused(() => clearedReply({ id: 2, cleared: 'undone', atPs: 'soon' }, 'DELETE /faults/2', false), 'DELETE /faults/2.atPs: expected a cleared fault {id, cleared, atPs} from the controller, got "soon"');
  refused(() => clearedReply({ cleared: 3 }, 'DELETE /faults', true), 'DELETE /faults: expected the cleared faults {cleared: […]} from the controller, got {"cleared":3}');
});
