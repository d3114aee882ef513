/**
 * What an app event costs (issue 22): one app in its sandbox (`@rocelab/app`), without a NIC,
 * posting one 64-byte WRITE at a time and awaiting it; the host completes each post in the next
 * dispatch. An event is that dispatch: the completion handed in, the app's continuation, its next
 * post. Wall µs per event (median of samples), and the interpreter steps per event it spent
 * (`app.steps` counts these; the same on every machine).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppSandbox, Machine, MAX_STEPS, bundleApp, extraBytesOf, type RegionInfo, type SandboxEvent, type SandboxHost } from '@rocelab/app';
import { median } from './util.js';

const APP = `export default async function (rdma) {
  const qp = rdma.connect('h2');
  const buf = rdma.region('buf');
  const remote = rdma.remote('h2', 'buf');
  for (let i = 0; i < rdma.args.n; i++) await qp.write(buf.slice(0, 64), remote.at(0));
}`;
const EVENTS_PER_SAMPLE = 5_000;
const SAMPLES = 5;

export interface AppEventFigures {
  microsPerEvent: number;
  stepsPerEvent: number;
  samples: number[];
}

export async function measureAppEvents(): Promise<AppEventFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-bench-app-'));
  try {
    writeFileSync(join(dir, 'loop.mjs'), APP);
    const source = bundleApp(join(dir, 'loop.mjs'), 'loop.mjs').source;
    const regions: RegionInfo[] = [{ name: 'buf', address: 0x1000_0000n, rkey: 0x15a, lengthBytes: 4096, access: ['remoteWrite'] }];
    const events: SandboxEvent[] = [];
    let now = 0;
    let id = 0;
    let done = false;
    const host: SandboxHost = {
      label: 'app loop.mjs on h1',
      module: 'loop.mjs',
      info: { node: 'h1', hosts: ['h1', 'h2'], args: { n: EVENTS_PER_SAMPLE * (SAMPLES + 1) } },
      peers: ['h2'],
      regions: new Map([
        ['h1', regions],
        ['h2', regions],
      ]),
      statusText: ['failed'],
      nowPs: () => now,
      random: () => 0.5,
      post: (_peer, w) => {
        events.push({ kind: 'completion', id: ++id, ok: true, opcode: w.opcode, bytes: w.sizeBytes, postedPs: now, completedPs: now + 1000 });
        return id;
      },
      postRecv: () => {},
      wakeAt: () => {},
      takeEvents: () => events.splice(0),
      log: () => {},
      report: () => {},
      metric: () => 0,
      inc: () => {},
      observe: () => {},
      finished: () => void (done = true),
      failed: (message) => {
        throw new Error(message);
      },
    };
    const machine = await Machine.create({ memoryBytes: 64 << 20, extraBytes: extraBytesOf(regions) });
    const sandbox = new AppSandbox(machine, source, host, { memoryBytes: 64 << 20, steps: MAX_STEPS });
    sandbox.start();
    const sample = (): { micros: number; steps: number } => {
      let steps = 0;
      const start = performance.now();
      for (let k = 0; k < EVENTS_PER_SAMPLE && !done; k++) {
        now += 1000;
        sandbox.dispatch();
        steps += MAX_STEPS - machine.fuelLeft;
      }
      return { micros: ((performance.now() - start) * 1000) / EVENTS_PER_SAMPLE, steps: steps / EVENTS_PER_SAMPLE };
    };
    sample(); // warm-up: the interpreter's machine code is compiled lazily
    const runs = Array.from({ length: SAMPLES }, sample);
    return { microsPerEvent: Math.round(median(runs.map((r) => r.micros)) * 100) / 100, stepsPerEvent: Math.round(median(runs.map((r) => r.steps))), samples: runs.map((r) => Math.round(r.micros * 100) / 100) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
