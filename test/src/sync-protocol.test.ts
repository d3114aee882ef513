/**
 * The window protocol end to end: the real controller and member processes over WebSockets on
 * loopback, hosting the real switch and host models (DESIGN §3).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createModel, runInproc, type ModelFactory } from '@rocelab/runtime';
import { loadTopologyFile, parseTopology } from '@rocelab/topology';
import { captureLog, fixture, runInProcess, split } from './harness.js';

const TREE = loadTopologyFile(fixture('tree.yaml'));
const inprocHash = async (pod = TREE, durationPs = 2e9, seed = 7) => (await runInproc(pod, { seed, durationPs })).traceHash;

test('no event runs past the end of its window, and every frame arrives in a later window', async () => {
  const violations: string[] = [];
  const windowOf = new Map<object, { startPs: number; endPs: number }>();
  let windows = 0;
  // Watch each engine's windows, and check every model callback happens inside the one being run.
  const models: ModelFactory = (engine, pc, index) => {
    if (!windowOf.has(engine)) {
      const run = engine.runUntil.bind(engine);
      engine.runUntil = (endPs: number) => {
        windowOf.set(engine, { startPs: engine.horizonPs, endPs });
        run(endPs);
        windows++;
      };
      windowOf.set(engine, { startPs: 0, endPs: 0 });
    }
    const model = createModel(engine, pc, index);
    const inside = (what: string, nowPs: number) => {
      const w = windowOf.get(engine)!;
      if (nowPs < w.startPs || nowPs >= w.endPs) violations.push(`${what} at ${nowPs} outside [${w.startPs}, ${w.endPs})`);
    };
    const onFrame = model.onFrame.bind(model);
    const onTimer = model.onTimer.bind(model);
    model.onFrame = (nowPs, port, frame) => (inside('frame', nowPs), onFrame(nowPs, port, frame));
    model.onTimer = (nowPs, timer) => (inside('timer', nowPs), onTimer(nowPs, timer));
    return model;
  };
  const { result } = await runInProcess(TREE, { durationPs: 2e9, members: split(TREE, 3), models });
  assert.deepEqual(violations.slice(0, 5), []);
  assert.ok(windows > 100, `${windows} windows`);
  assert.equal(result.causalityViolations, 0);
  assert.equal(result.traceHash, await inprocHash());
});

test('an idle pod jumps to the next event instead of stepping through empty windows', async () => {
  const pod = parseTopology(
    `
name: idle
nodes:
  - {name: h1, role: host, ip: 10.0.0.1}
  - {name: h2, role: host, ip: 10.0.0.2}
  - {name: sw, role: tor}
links:
  - {a: h1:p0, b: sw:p1}
  - {a: h2:p0, b: sw:p2}
workloads:
  - {kind: flow, from: h1, to: h2, sizeBytes: 100KB, start: 5ms}
`,
    '<idle>',
  );
  const { result } = await runInProcess(pod, { durationPs: 6e9, members: split(pod, 3) });
  // Stepping 6 ms in windows of 1.0168 µs would take ~5,900 windows; the flow needs ~25 µs.
  assert.ok(result.windows < 200, `${result.windows} windows`);
  assert.equal(result.flows[0]?.status, 'success');
  assert.equal(result.traceHash, await inprocHash(pod, 6e9, 1));
});

test('pacing and lease sizes change nothing: dilation 300, one-window leases, three members', async () => {
  const short = 3e8; // 0.3 ms: 90 ms of wall time at dilation 300
  const expected = await inprocHash(TREE, short);
  const paced = await runInProcess(TREE, { durationPs: short, dilation: 300, members: split(TREE, 2) });
  assert.equal(paced.result.traceHash, expected);
  assert.ok(paced.result.wallMs >= 90, `paced run took ${paced.result.wallMs} ms`);
  const oneWindow = await runInProcess(TREE, { durationPs: short, maxWindowsPerLease: 1, members: split(TREE, 3) });
  assert.equal(oneWindow.result.traceHash, expected);
});

test('pipeline latencies widen the window and change nothing a run computes but their own delay', async () => {
  const text = readFileSync(fixture('tree.yaml'), 'utf8');
  const piped = parseTopology(text.replace('defaults:\n', 'defaults:\n  pipelineLatency: {switch: 1us, host: 1us}\n'), '<piped>');
  const plain = await runInProcess(TREE, { durationPs: 1e9, members: split(TREE, 3) });
  const run = await runInProcess(piped, { durationPs: 1e9, members: split(piped, 3) });
  // Every link is cut by three members: the window is 1 µs + 1 µs of pipeline + 16.8 ns, not 1.0168 µs.
  assert.ok(run.result.windows <= plain.result.windows * 0.55, `${run.result.windows} windows with pipelines, ${plain.result.windows} without`);
  assert.equal(run.result.causalityViolations, 0);
  assert.equal(run.result.conservation, true);
  assert.equal(run.result.traceHash, await inprocHash(piped, 1e9));
  assert.notEqual(run.result.traceHash, plain.result.traceHash, 'a frame that takes longer is a different run');
});

test('a pair connection that receives garbage is closed with a logged reason, every link of the pair declared down, and the pod finishes', async () => {
  const { log, lines } = captureLog('info');
  // One connection between m1 and m2 carries both h1:p0--sw1:p1 and h3:p0--sw2:p1; h2 and h4 talk inside m2.
  const members = [
    { id: 'm1', nodes: ['h1', 'h3'] },
    { id: 'm2', nodes: ['sw1', 'sw2', 'h2', 'h4'] },
  ];
  const { result } = await runInProcess(TREE, {
    durationPs: 2e9,
    dilation: 300,
    members,
    log,
    whileRunning: async (ms) => {
      await new Promise((r) => setTimeout(r, 150));
      ms[0]!.linkConnection('h1:p0--sw1:p1')!.sendRaw(new Uint8Array([0x12, 0xff, 0xff, 0xff]));
    },
  });
  const text = lines.join('');
  assert.match(text, /malformed message: closing the connection/);
  assert.match(text, /"links":\["h1:p0--sw1:p1","h3:p0--sw2:p1"\],"code":4004,.*"msg":"pair connection closed: its links are declared down from the next window"/);
  assert.equal(result.conservation, true, JSON.stringify(result.packets));
  assert.equal(result.causalityViolations, 0);
  assert.ok(result.droppedByReason.link_down > 0, 'the flow over the broken link loses frames as link_down');
  const h4toh2 = result.flows.find((f) => f.from === 'h4')!;
  assert.equal(h4toh2.status, 'success', 'flows that avoid the broken pair still complete');
  assert.notEqual(result.flows.find((f) => f.from === 'h1')!.status, 'success', 'h1 is cut off');
});
