import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pauseIntervals, pauseSummary, type PfcEvent } from './pause-intervals.js';

const pause = (timeUs: number, pauseUs: number, port = 'p1'): PfcEvent => ({ timeUs, node: 'sw1', port, priority: 3, event: 'pause', pauseUs });
const resume = (timeUs: number, port = 'p1'): PfcEvent => ({ timeUs, node: 'sw1', port, priority: 3, event: 'resume', pauseUs: 0 });
const spans = (events: PfcEvent[]): Array<[number, number, number]> => pauseIntervals(events).map((i) => [i.startUs, i.endUs, i.pauses]);

test('a lone pause lasts pause_us; one that expires before the next starts a second interval', () => {
  assert.deepEqual(spans([pause(10, 5), pause(20, 5)]), [[10, 15, 1], [20, 25, 1]]);
});

test('refreshes while paused reload the timer and do not count as new pauses', () => {
  // Refreshed every half pause time, as switches do (docs/architecture/switch.md, "PFC generation").
  assert.deepEqual(spans([pause(0, 10), pause(5, 10), pause(10, 10), pause(15, 10)]), [[0, 25, 4]]);
  // A refresh with fewer quanta reloads the timer to less (802.1Qbb: the timer is set, not maxed).
  assert.deepEqual(spans([pause(0, 10), pause(2, 1)]), [[0, 3, 2]]);
});

test('a pause arriving exactly at expiry is a refresh (PFC arrivals come before transmitter events)', () => {
  assert.deepEqual(spans([pause(0, 10), pause(10, 10)]), [[0, 20, 2]]);
});

test('a resume ends the interval at once; a resume while not paused, or after expiry, changes nothing', () => {
  assert.deepEqual(spans([resume(1), pause(2, 100), pause(50, 100), resume(60), resume(70)]), [[2, 60, 2]]);
  assert.deepEqual(spans([pause(0, 10), resume(30)]), [[0, 10, 1]]);
  // Zero quanta is a resume whatever the event column says (the link model's rule).
  assert.deepEqual(spans([pause(0, 10), pause(4, 0)]), [[0, 4, 1]]);
});

test('priorities and ports are separate transmitters; events are taken in time order; output is by start', () => {
  const events = [pause(30, 10, 'p2'), pause(0, 50, 'p1'), resume(20, 'p2'), pause(25, 10, 'p1'), { ...pause(5, 5), priority: 4 }];
  assert.deepEqual(
    pauseIntervals(events).map((i) => `${i.port}/${i.priority} ${i.startUs}-${i.endUs}`),
    ['p1/3 0-35', 'p1/4 5-10', 'p2/3 30-40'],
  );
});

test('the summary counts intervals and averages their lengths', () => {
  assert.deepEqual(pauseSummary(pauseIntervals([pause(0, 10), pause(5, 10), pause(100, 4)])), { count: 2, meanUs: 9.5 });
  assert.deepEqual(pauseSummary([]), { count: 0, meanUs: null });
});
