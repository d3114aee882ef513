/**
 * A drill's faults must come before its end; the topology file's own faults after it simply never
 * apply (as in `rocelab run`), so a short session exported as a drill keeps them and their numbers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DrillError, loadDrill } from './drill-file.js';

const TOPOLOGY = `name: pair
nodes:
  - {name: sw1, role: tor, subnet: 10.0.1.0/24}
  - {name: h1, role: host, ip: 10.0.1.1}
  - {name: h2, role: host, ip: 10.0.1.2}
links:
  - {a: h1:p0, b: sw1:p1}
  - {a: h2:p0, b: sw1:p2}
faults:
  - {kind: nicPauseStorm, node: h2, at: 10ms}
`;
const drill = (faults: string) => `title: t
source: s
topology: pair.yaml
duration: 1ms
${faults}expect:
  - {kind: deadlock, expected: false}
`;

test("the topology's fault after the drill's end is kept (it never applies); the drill's own is refused", () => {
  const ok = loadDrill(drill('faults:\n  - {kind: nicPauseStorm, node: h1, at: 500us}\n'), '/d/drill.yaml', { readText: () => TOPOLOGY });
  assert.deepEqual(
    [...ok.variants[0]!.pod.faults].sort((a, b) => a.index - b.index).map((f) => [f.index, f.target]),
    [
      [0, 'h2'],
      [1, 'h1'],
    ],
  );
  assert.throws(
    () => loadDrill(drill('faults:\n  - {kind: nicPauseStorm, node: h1, at: 2ms}\n'), '/d/drill.yaml', { readText: () => TOPOLOGY }),
    (err: unknown) => err instanceof DrillError && /drill\.yaml: faults\[0\]\.at: expected a time before the end of the drill \(1ms\), got "2ms"/.test(err.message) && !/pair\.yaml/.test(err.message),
  );
});

test('plots: {slowdown: true} asks for FCT slowdown by message size; off by default; not a boolean is refused', () => {
  const read = { readText: () => TOPOLOGY };
  assert.equal(loadDrill(drill(''), '/d/drill.yaml', read).plotSlowdown, false);
  assert.equal(loadDrill(drill('plots: {slowdown: true}\n'), '/d/drill.yaml', read).plotSlowdown, true);
  assert.equal(loadDrill(drill('plots: {until: 800us, slowdown: false}\n'), '/d/drill.yaml', read).plotSlowdown, false);
  assert.throws(() => loadDrill(drill('plots: {slowdown: yes please}\n'), '/d/drill.yaml', read), /plots\.slowdown|slowdown/);
});

test('plots: {until} ends the plots at a virtual time within the drill (issue 25: a native program acts after 1 s of setup)', () => {
  const read = { readText: () => TOPOLOGY };
  assert.equal(loadDrill(drill(''), '/d/drill.yaml', read).plotUntilPs, null);
  assert.equal(loadDrill(drill('plots: {until: 800us}\n'), '/d/drill.yaml', read).plotUntilPs, 800e6);
  for (const [until, actual] of [
    ['2ms', '"2ms"'],
    ['0us', '"0us"'],
    ['soon', '"soon"'],
  ] as const) {
    assert.throws(
      () => loadDrill(drill(`plots: {until: ${until}}\n`), '/d/drill.yaml', read),
      (err: unknown) => err instanceof DrillError && new RegExp(`drill\\.yaml: plots\\.until: expected (a time above 0, at most the drill's duration \\(1ms\\)|a duration like 1us, 2\\.5ms), got ${actual}`).test(err.message) && err.message.split('plots.until').length === 2,
      until,
    );
  }
});
