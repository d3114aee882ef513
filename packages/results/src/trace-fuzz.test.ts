// Parsing is total: whatever a trace directory holds, parseTraceDir returns tables or throws a
// ResultsError naming where, never another error; and whatever parses, compare can evaluate.
// Deterministic: mutations come from a seeded stream, so a failure replays exactly.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '@rocelab/sim';
import { compareTraces } from './compare.js';
import { ResultsError } from './errors.js';
import { defaultTolerances } from './tolerance.js';
import { EVENTS_COLUMNS, FCT_COLUMNS, PACKET_EVENTS_COLUMNS, PFC_COLUMNS, PROBES_COLUMNS, QP_EVENTS_COLUMNS, QUEUE_COLUMNS, RATES_COLUMNS, type TraceFileName } from './trace-columns.js';
import { parseTraceDir, splitRuns, type TraceText } from './trace-tables.js';

const VALID: Record<TraceFileName, string> = {
  'rates.csv': `run,${RATES_COLUMNS.join(',')}\na,0.000000,h1,1,7,h2,40.000000,40.000000,,0,0,0.000000\na,10.000000,h1,1,7,h2,20.000000,40.000000,0.5,1024,1,19.500000\n`,
  'queue.csv': `run,${QUEUE_COLUMNS.join(',')}\na,1.000000,sw1,p3,3,5000,9000,100,0,0,1,2,7\nb,1.000000,sw1,p3,3,0,9000,0,0,0,0,0,0\n`,
  'pfc.csv': `run,${PFC_COLUMNS.join(',')}\na,2.000000,h1,p0,3,pause,65535,838.848000\na,3.000000,h1,p0,3,resume,0,0.000000\n`,
  'probes.csv': `run,${PROBES_COLUMNS.join(',')}\na,100.000000,h1,h2,6.120000\nb,100.000000,h1,h2,\n`,
  'events.csv': `run,${EVENTS_COLUMNS.join(',')}\na,2000.000000,tor2,p2,3,pfcwd_storm_detected,drop\nb,0.000000,h4,,,fault,nicPauseStorm\n`,
  'fct.csv': `run,${FCT_COLUMNS.join(',')}\na,7,h1,h2,1000,0.000000,2.000000,2.000000,1.000000,2.000000,success\nb,7,h1,h2,1000,0.000000,,,1.000000,,incomplete\n`,
  'qp-events.csv': `run,${QP_EVENTS_COLUMNS.join(',')}\na,0.000000,h1,2,wr_posted,,1000,write\na,0.100000,h1,2,psn_sent,0,1000,\nb,2.000000,h1,2,nak,0,,0x60\n`,
  'packet-events.csv': `run,${PACKET_EVENTS_COLUMNS.join(',')}\na,1.000000,h1,p0,2,3,2,drop\n`,
};
const ALPHABET = ',\n\r0123456789.-+eE abcrun_';

function mutate(text: string, rng: Rng): string {
  const chars = [...text];
  const edits = 1 + (rng.nextU32() % 4);
  for (let i = 0; i < edits; i++) {
    const at = rng.nextU32() % (chars.length + 1);
    const c = ALPHABET[rng.nextU32() % ALPHABET.length]!;
    switch (rng.nextU32() % 3) {
      case 0:
        chars.splice(at, 1);
        break;
      case 1:
        chars.splice(at, 0, c);
        break;
      default:
        chars[at] = c;
    }
  }
  return chars.join('');
}

test('mutated trace files parse or fail with a ResultsError; what parses compares', () => {
  const rng = new Rng(1, 'results', 'trace-fuzz');
  const codes = new Map<string, number>();
  let parsed = 0;
  for (let i = 0; i < 3000; i++) {
    const files: TraceText[] = (Object.keys(VALID) as TraceFileName[]).map((name) => ({
      name,
      path: `d/${name}`,
      text: rng.nextU32() % 4 === 0 ? mutate(VALID[name], rng) : VALID[name],
    }));
    try {
      const dir = parseTraceDir(files);
      parsed++;
      const runs = splitRuns(dir);
      if (runs.size > 0) compareTraces(runs.values().next().value!, runs, { tolerances: defaultTolerances() });
    } catch (err) {
      if (!(err instanceof ResultsError)) assert.fail(`${String(err)} escaped for ${JSON.stringify(files.map((f) => f.text))}`);
      assert.match(err.message, /^d\/[a-z-]+\.csv(:\d+)?: /);
      codes.set(err.code, (codes.get(err.code) ?? 0) + 1);
    }
  }
  assert.ok(parsed > 100, `${parsed} inputs parsed`);
  assert.deepEqual([...codes.keys()].sort(), ['field', 'header', 'runs']);
});
