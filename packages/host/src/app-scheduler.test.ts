// The app scheduler: what the NIC tells the app reaches it after the event that caused it, at the
// same instant, in order; the app's own wake-up is one timer shared with those hand-overs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AppEvents, Completion } from '@rocelab/rnic';
import { NodeContext, NodeStats, TimerTable, type ContextHost } from '@rocelab/sim';
import { AppScheduler } from './app-scheduler.js';

/** A node's context on a hand-driven clock: `runUntil` fires the armed timers in deadline order. */
function clock() {
  const armed = new Map<number, { atPs: number; generation: number }>();
  const host: ContextHost & { nowPs: number } = {
    nowPs: 0,
    seed: 1,
    scheduleTimer: (_node, timer, atPs, generation) => void armed.set(timer, { atPs, generation }),
    note: () => undefined,
  };
  const ctx = new NodeContext(host, 0, 'h1', [], new NodeStats(0));
  const timers = new TimerTable();
  const runUntil = (endPs: number) => {
    for (let steps = 0; steps < 100; steps++) {
      const next = [...armed].filter(([, a]) => a.atPs <= endPs).sort((x, y) => x[1].atPs - y[1].atPs)[0];
      if (next === undefined) break;
      const [timer, { atPs, generation }] = next;
      armed.delete(timer);
      host.nowPs = atPs;
      if (ctx.fireTimer(timer, generation)) timers.fire(atPs, timer);
    }
    host.nowPs = endPs;
  };
  return { ctx, timers, host, runUntil };
}

const done = (wrId: number): Completion => ({ wrId, opcode: 'write', sizeBytes: 8, postedPs: 0, completedPs: 0, status: 'success' });

function recorder(log: string[]): AppEvents {
  return {
    onCompletion: (qpn, wrId) => log.push(`completion qp${qpn} wr${wrId}`),
    onReceive: (qpn, r) => log.push(`receive qp${qpn} ${r.bytes} B`),
    run: (nowPs) => log.push(`run @${nowPs}`),
  };
}

test('completions and receives reach the app after the event, at the same instant, in order, then the app runs once', () => {
  const { ctx, timers, host, runUntil } = clock();
  let kicks = 0;
  const app = new AppScheduler(ctx, timers, () => kicks++);
  const log: string[] = [];
  app.attach(recorder(log));
  host.nowPs = 500;
  app.completion(3, done(7));
  app.receive(4, { opcode: 'send', bytes: 11, immediate: null, buffer: new Uint8Array(11) });
  assert.deepEqual(log, [], 'nothing is handed over in the middle of the NIC event');
  runUntil(500);
  assert.deepEqual(log, ['completion qp3 wr7', 'receive qp4 11 B', 'run @500']);
  assert.equal(kicks, 1, 'the NIC is kicked once the app ran (it may have posted work)');
});

test('the app wakes when it asked to, and a hand-over before then does not lose the wake-up', () => {
  const { ctx, timers, host, runUntil } = clock();
  const app = new AppScheduler(ctx, timers, () => undefined);
  const log: string[] = [];
  app.attach(recorder(log));
  app.wakeAt(2_000);
  runUntil(1_000);
  assert.deepEqual(log, []);
  host.nowPs = 1_000;
  app.completion(1, done(0));
  runUntil(1_000);
  assert.deepEqual(log, ['completion qp1 wr0', 'run @1000']);
  runUntil(3_000);
  assert.deepEqual(log, ['completion qp1 wr0', 'run @1000', 'run @2000'], 'the wake-up at 2 µs still comes');
  app.wakeAt(null);
  app.wakeAt(4_000);
  app.wakeAt(null);
  runUntil(10_000);
  assert.equal(log.length, 3, 'a disarmed wake-up never fires');
});

test('events raised while the app runs (its own work completing at once) are handed over in a second round at the same instant', () => {
  const { ctx, timers, host, runUntil } = clock();
  const app = new AppScheduler(ctx, timers, () => undefined);
  const log: string[] = [];
  let posted = false;
  app.attach({
    ...recorder(log),
    run: (nowPs) => {
      log.push(`run @${nowPs}`);
      if (!posted) {
        posted = true;
        app.completion(2, done(9));
      }
    },
  });
  host.nowPs = 100;
  app.wakeAt(100);
  runUntil(100);
  assert.deepEqual(log, ['run @100', 'completion qp2 wr9', 'run @100']);
});

test('without an app nothing is scheduled: a host of the built-in traffic pays no timer events', () => {
  const { ctx, timers, runUntil } = clock();
  const app = new AppScheduler(ctx, timers, () => assert.fail('no app, no kick'));
  app.completion(1, done(0));
  assert.equal(ctx.timerDeadlinePs(0), null);
  runUntil(1_000);
});
