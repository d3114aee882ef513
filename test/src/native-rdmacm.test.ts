/**
 * rdma_cm for real (issue 25): Debian's unmodified rping (three threads: main, CM, CQ) and
 * rdma_server/rdma_client (the synchronous API) complete between two hosts, with the connection
 * exchange through the fabric, and a second run gives the same output and trace hash.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { nativeBuilt } from '@rocelab/native';
import { runInproc, type RunResult } from '@rocelab/runtime';
import { loadTopologyFile } from '@rocelab/topology';
import { cli, fixture } from './harness.js';

const MS = 1_000_000_000;

function installed(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const skip = !nativeBuilt()
  ? 'the rocelab0 device was not built (gcc, libibverbs-dev, librdmacm-dev: see npm run build)'
  : !installed('rping') || !installed('rdma_server') || !installed('rdma_client')
    ? 'rping, rdma_server and rdma_client are not installed (Debian package rdmacm-utils)'
    : false;

async function run(name: string): Promise<RunResult> {
  return runInproc(loadTopologyFile(fixture(`native/${name}`)), { seed: 1, durationPs: 100 * MS });
}

/** The same pod as local processes, through `rocelab run --mode procs`. */
function asProcesses(name: string): RunResult {
  const r = cli(['run', fixture(`native/${name}`), '--duration', '100ms', '--mode', 'procs', '--seed', '1', '--json'], {}, 600_000);
  assert.ok(r.json !== null, `${r.stdout}\n${r.stderr}`);
  return r.json;
}

/** What must be the same in two runs: every program's output and status, and the trace. */
function outcome(r: RunResult) {
  return { traceHash: r.traceHash, programs: r.programs.map((p) => ({ argv: p.argv, status: p.status, exitCode: p.exitCode, stdout: p.stdout, stderr: p.stderr, exitedPs: p.exitedPs })) };
}

test('rping -C 100 -V: a hundred pings, their data verified, both sides exit 0, the same twice and as processes', { skip }, async () => {
  const first = await run('rping.yaml');
  const [server, client] = first.programs;
  assert.ok(server !== undefined && client !== undefined, 'expected two programs');
  for (const p of [server, client]) assert.equal(p.status === 'exited' && p.exitCode, 0, `${p.argv.join(' ')}: ${p.status} ${p.exitCode}\n${p.stderr}\n${p.log.join('\n')}`);
  const pings = client.stdout.split('\n').filter((l) => l.startsWith('ping data: rdma-ping-'));
  assert.equal(pings.length, 100, client.stdout);
  assert.match(pings[99]!, /^ping data: rdma-ping-99: /);
  assert.doesNotMatch(client.stderr, /mismatch/);
  assert.match(server.stderr, /server DISCONNECT EVENT/);
  assert.deepEqual(outcome(await run('rping.yaml')), outcome(first));
  assert.deepEqual(outcome(asProcesses('rping.yaml')), outcome(first), 'as local processes');
});

test('rdma_server and rdma_client: connect, a SEND each way, disconnect, exit 0, the same twice', { skip }, async () => {
  const first = await run('rdma-server.yaml');
  for (const p of first.programs) assert.equal(p.status === 'exited' && p.exitCode, 0, `${p.argv.join(' ')}: ${p.status} ${p.exitCode}\n${p.stdout}\n${p.stderr}\n${p.log.join('\n')}`);
  assert.match(first.programs[0]!.stdout, /rdma_server: end 0/);
  assert.match(first.programs[1]!.stdout, /rdma_client: end 0/);
  assert.deepEqual(outcome(await run('rdma-server.yaml')), outcome(first));
  assert.deepEqual(outcome(asProcesses('rdma-server.yaml')), outcome(first), 'as local processes');
});
