/**
 * `engineEventsPerSec`: model events per wall second of one engine hosting every node of a
 * fixture in one process (`inproc`: no windows, no sockets), so it measures the event queue,
 * the link model and the switch/host models and nothing else.
 */
import { runInproc } from '@rocelab/runtime';
import { PS_PER_MS } from '@rocelab/sim';
import { loadTopologyFile } from '@rocelab/topology';
import { median, note } from './util.js';

export interface EngineFigures {
  eventsPerSec: number;
  /** Samples behind the median, each several runs long. */
  samples: number;
  runs: number;
  eventsPerRun: number;
}

export interface EngineOptions {
  warmupMs: number;
  measureMs: number;
}

/**
 * One run of the tree fixture lasts ~20 ms of wall time once warm, and `RunResult.wallMs` is
 * rounded to whole milliseconds, so one run's rate carries a few per cent of rounding noise.
 * A sample therefore sums several runs (≥ SAMPLE_MS of engine time), and we report the
 * median sample: robust against a GC pause or a noisy neighbour landing in one of them.
 */
const SAMPLE_MS = 100;
/** Each run is 2 ms of virtual time, as the CLI runs use; the fixture's flows end by ~1.3 ms. */
const DURATION_PS = 2 * PS_PER_MS;

export async function measureEngine(file: string, options: EngineOptions): Promise<EngineFigures> {
  const pod = loadTopologyFile(file);
  let seed = 1;
  // Every run uses a fresh seed: the fixture draws a flow's start time from it, so the
  // figure is not tuned to one trace. Engine time only (the result's wallMs): building the
  // engine and assembling the result are not events.
  const run = (): Promise<{ events: number; wallMs: number }> => runInproc(pod, { seed: seed++, durationPs: DURATION_PS });

  // JIT warm-up matters a lot here: the first run is several times slower than a warm one.
  const warm = await sumRuns(run, options.warmupMs);
  note(`engine: warm-up ${warm.runs} runs, last sample ${rate(warm)} events/s`);

  const rates: number[] = [];
  const total: Sum = { runs: 0, events: 0, wallMs: 0 };
  while (total.wallMs < options.measureMs || rates.length < 5) {
    const sample = await sumRuns(run, SAMPLE_MS);
    rates.push(rate(sample));
    total.runs += sample.runs;
    total.events += sample.events;
    total.wallMs += sample.wallMs;
  }
  note(`engine: ${rates.length} samples (${total.runs} runs, ${total.wallMs} ms) → ${rates.join(', ')} events/s`);
  return { eventsPerSec: median(rates), samples: rates.length, runs: total.runs, eventsPerRun: Math.round(total.events / total.runs) };
}

interface Sum {
  runs: number;
  events: number;
  wallMs: number;
}

async function sumRuns(run: () => Promise<{ events: number; wallMs: number }>, atLeastMs: number): Promise<Sum> {
  const sum: Sum = { runs: 0, events: 0, wallMs: 0 };
  while (sum.wallMs < atLeastMs || sum.runs < 2) {
    const r = await run();
    sum.runs++;
    sum.events += r.events;
    sum.wallMs += r.wallMs;
  }
  return sum;
}

const rate = (s: Sum): number => Math.round(s.events / (s.wallMs / 1000));
