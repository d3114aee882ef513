/**
 * A sandbox with a host that records what the app did, for the tests of this package (no NIC):
 * the test sets the time and the events, and reads the posts, logs, reports and outcome.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleApp } from './bundle.js';
import { Machine } from './machine.js';
import { AppSandbox, DEFAULT_APP_LIMITS, extraBytesOf, type AppLimits, type RegionInfo, type SandboxEvent, type SandboxHost, type SandboxWork } from './sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'rocelab-app-'));

/** Writes `text` as a module file of the test's; its path. */
export function module(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

export interface Recorded {
  now: number;
  wake: number;
  events: SandboxEvent[];
  log: string[];
  reports: Record<string, unknown>;
  posts: Array<{ peer: string; work: SandboxWork; at: number }>;
  receives: Array<{ peer: string; buffer: Uint8Array }>;
  metrics: Array<{ kind: 0 | 1; name: string; value: number }>;
  status: 'running' | 'finished' | 'failed';
  error: string | null;
}

const REGIONS: RegionInfo[] = [{ name: 'buf', address: 0x1000_0000n, rkey: 0x15a, lengthBytes: 4096, access: ['remoteRead', 'remoteWrite', 'remoteAtomic'] }];

export async function sandbox(text: string, limits: AppLimits = DEFAULT_APP_LIMITS, file = 't.mjs'): Promise<{ h: Recorded; s: AppSandbox }> {
  const bundled = bundleApp(module(file, text), file);
  const h: Recorded = { now: 0, wake: -1, events: [], log: [], reports: {}, posts: [], receives: [], metrics: [], status: 'running', error: null };
  let nextId = 0;
  const host: SandboxHost = {
    label: `app ${file} on h1`,
    module: file,
    info: { node: 'h1', hosts: ['h1', 'h2'], args: { n: 3 } },
    peers: ['h2'],
    regions: new Map([
      ['h1', REGIONS],
      ['h2', REGIONS],
    ]),
    statusText: ['remote access error'],
    nowPs: () => h.now,
    random: () => 0.25,
    post: (peer, work) => {
      h.posts.push({ peer, work, at: h.now });
      return ++nextId;
    },
    postRecv: (peer, buffer) => void h.receives.push({ peer, buffer }),
    wakeAt: (ps) => void (h.wake = ps),
    takeEvents: () => h.events.splice(0),
    log: (m) => void h.log.push(m),
    report: (k, v) => void (h.reports[k] = v),
    metric: (kind, name) => h.metrics.push({ kind, name, value: 0 }) - 1,
    inc: (i, by) => void (h.metrics[i]!.value += by),
    observe: (i, v) => void (h.metrics[i]!.value = v),
    finished: () => void (h.status = 'finished'),
    failed: (m) => {
      h.status = 'failed';
      h.error = m;
    },
  };
  const machine = await Machine.create({ memoryBytes: limits.memoryBytes, extraBytes: extraBytesOf(REGIONS) });
  return { h, s: new AppSandbox(machine, bundled.source, host, limits) };
}
