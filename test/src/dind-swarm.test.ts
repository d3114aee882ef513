/**
 * More than one machine, simulated on this one (issue 27): a two-node Docker Swarm whose nodes
 * are Docker-in-Docker containers (deploy/docker/offline-dind-image.sh) on a bridge network of
 * their own, the default pod deployed across them by `rocelab stack --workers 2 --place-on A,B`
 * (one worker per node), and a one-way delay added between the nodes: 0, 100 µs and 1 ms, each
 * twice. Each run gives its ms per window and its trace hash, which must be `--mode procs`'s and
 * inproc's. Those figures are reported (t.diagnostic), not asserted: on a busy 2-core machine a
 * window's compute varies by more than the delays. What is asserted is the protocol's floor: with
 * 20 ms one way no window takes less than 20 ms (a window waits at least once for the other
 * machine's batches: docs/multi-machine.md, "What a window costs across machines").
 *
 * Needs a Docker engine that can run privileged containers, the rocelab image (ROCELAB_IMAGE,
 * default rocelab:local: `npm run image`, as .ci/run builds it), and what offline-dind-image.sh
 * copies from this machine (Debian's docker.io, iptables, iproute2, gcc, libnetfilter-queue-dev).
 * Without them the test is skipped — unless ROCELAB_REQUIRE_DOCKER=1 (set by .ci/run), which
 * makes that a failure. Everything it starts (containers, their volumes, the network; the swarm
 * lives inside the containers) is removed after, whatever happened; the DinD image stays.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import type { RunResult } from '@rocelab/runtime';
import { cli, ROOT, toolReady } from './harness.js';

const IMAGE = process.env.ROCELAB_IMAGE ?? 'rocelab:local';
const DIND_IMAGE = 'rocelab/dind-offline:local';
const POD = 'deploy/pods/default.yaml';
const DURATION = '1ms';
/** A delay far above a window's compute here, for the protocol's floor (see the test). */
const FAR_US = 20_000;
const FAR_DURATION = '100us';
/**
 * One-way delays added on each node's interface towards the other, in µs; null: nothing in the
 * way. 0 µs still passes every packet through the delayer (where there is no netem), so that
 * what the delayer itself costs is told apart from the delay. Each is run twice, in the order
 * A B C C B A, so that a machine getting busier or quieter during the test weighs on every delay
 * alike.
 */
const DELAYS_US: ReadonlyArray<number | null> = process.env.ROCELAB_DIND_DELAYS_US === undefined ? [0, 100, 1000] : delaysFrom(process.env.ROCELAB_DIND_DELAYS_US);

/** ROCELAB_DIND_DELAYS_US=none,0,1000,3000: other delays to measure. */
function delaysFrom(list: string): Array<number | null> {
  const delays = list.split(',').map((d) => (d === 'none' ? null : Number(d)));
  if (delays.some((d) => d !== null && !(Number.isInteger(d) && d >= 0 && d <= 100_000))) {
    throw new Error(`ROCELAB_DIND_DELAYS_US=${list}: expected comma-separated delays in µs (0..100000, or none)`);
  }
  return delays;
}

let missing: string | null = null;
let work = '';
const tag = randomBytes(3).toString('hex');
const network = `rocelab-dind-${tag}`;
const nodes = [`rocelab-dind-${tag}-a`, `rocelab-dind-${tag}-b`] as const;
const started: string[] = [];
let networkCreated = false;

function sh(cmd: string, args: string[], options: { env?: Record<string, string>; timeout?: number; input?: string } = {}): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...options.env }, timeout: options.timeout ?? 120_000, input: options.input, maxBuffer: 64 * 2 ** 20 });
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  assert.equal(r.status, 0, `${what}: exit ${r.status}${r.error ? ` (${r.error.message})` : ''}\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** The Docker engine inside DinD node i, through the socket it publishes in the test's directory. */
const engine = (i: number) => `unix://${join(work, `node${i}`, 'docker.sock')}`;
const inner = (i: number, args: string[], timeout = 120_000) => sh('docker', ['-H', engine(i), ...args], { timeout });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, timeoutMs: number, probe: () => T | null): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = probe();
    if (value !== null) return value;
    await sleep(1000);
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
}

before(() => {
  if (sh('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: 30_000 }).status !== 0) missing = 'no Docker engine is reachable';
  else if (sh('docker', ['image', 'inspect', IMAGE], { timeout: 30_000 }).status !== 0) missing = `the rocelab image ${IMAGE} is not present (npm run image builds it; ROCELAB_IMAGE names another)`;
  else {
    const build = sh('deploy/docker/offline-dind-image.sh', [DIND_IMAGE], { timeout: 600_000 });
    if (build.status !== 0) missing = `the DinD node image could not be built: ${build.stderr.trim()}`;
  }
});

after(() => {
  if (started.length > 0) sh('docker', ['rm', '-f', '-v', ...started], { timeout: 120_000 });
  if (networkCreated) sh('docker', ['network', 'rm', network], { timeout: 60_000 });
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

const needsDocker = (t: TestContext): boolean => toolReady(t, missing, 'ROCELAB_REQUIRE_DOCKER');

/**
 * Starts DinD node i. `--privileged` is what Docker-in-Docker needs; an engine that cannot grant
 * every capability (itself in a container without CAP_SYS_RESOURCE, as this machine's is)
 * refuses it ("unable to apply caps"), and then the node gets what privileged would have given
 * it but that capability: docs/multi-machine.md.
 */
function startNode(i: number): void {
  const name = nodes[i]!;
  const dir = join(work, `node${i}`);
  const common = ['--name', name, '--hostname', name, '--network', network, '--label', 'io.rocelab.test=dind', '-v', `${dir}:/run/dind`];
  const args = [DIND_IMAGE, '--host', 'unix:///run/dind/docker.sock'];
  let r = sh('docker', ['run', '-d', '--privileged', ...common, ...args]);
  if (r.status !== 0) {
    sh('docker', ['rm', '-f', '-v', name]);
    assert.match(r.stderr, /apply caps|operation not permitted/, `docker run --privileged ${name}: ${r.stderr}`);
    const unprivileged = ['--cap-add', 'ALL', '--cap-drop', 'SYS_RESOURCE', '--security-opt', 'seccomp=unconfined', '--security-opt', 'apparmor=unconfined', '--security-opt', 'systempaths=unconfined', '-v', '/sys/fs/cgroup:/sys/fs/cgroup'];
    r = sh('docker', ['run', '-d', ...unprivileged, ...common, ...args]);
  }
  started.push(name);
  ok(r, `docker run ${name}`);
}

/** Node i's address on the bridge network: the other node's packets to it are the ones delayed. */
function address(i: number): string {
  return ok(sh('docker', ['inspect', '-f', `{{(index .NetworkSettings.Networks "${network}").IPAddress}}`, nodes[i]!]), `docker inspect ${nodes[i]}`).trim();
}

/**
 * Delays every packet node i sends the other by `us` µs: `tc netem` where the kernel has it, else
 * nfq-delay behind an iptables NFQUEUE rule (sch_netem is not built into every kernel; this
 * machine's has none). Queue `queue` is the delay's own: a queue keeps its listener.
 */
function addDelay(i: number, us: number, queue: number): string {
  const peer = address(1 - i);
  const netem = sh('docker', ['exec', nodes[i]!, 'tc', 'qdisc', 'add', 'dev', 'eth0', 'root', 'netem', 'delay', `${us}us`]);
  if (netem.status === 0) return 'netem';
  assert.match(netem.stderr, /unknown/i, `tc netem on ${nodes[i]}: ${netem.stderr}`);
  ok(sh('docker', ['exec', '-d', nodes[i]!, 'nfq-delay', String(queue), String(us)]), `nfq-delay on ${nodes[i]}`);
  ok(sh('docker', ['exec', nodes[i]!, 'iptables', '-t', 'mangle', '-A', 'POSTROUTING', '-o', 'eth0', '-d', peer, '-j', 'NFQUEUE', '--queue-num', String(queue)]), `iptables NFQUEUE on ${nodes[i]}`);
  return 'nfq-delay';
}

function removeDelay(i: number, how: string, queue: number): void {
  if (how === 'netem') ok(sh('docker', ['exec', nodes[i]!, 'tc', 'qdisc', 'del', 'dev', 'eth0', 'root']), `tc qdisc del on ${nodes[i]}`);
  // The delayer stays, idle (its queue no longer gets a packet), until the node is removed.
  else ok(sh('docker', ['exec', nodes[i]!, 'iptables', '-t', 'mangle', '-D', 'POSTROUTING', '-o', 'eth0', '-d', address(1 - i), '-j', 'NFQUEUE', '--queue-num', String(queue)]), `iptables -D on ${nodes[i]}`);
}

test('two DinD swarm nodes, one worker each: the trace hash of procs and inproc at 0, 100 µs and 1 ms between them (ms per window reported), and no window shorter than 20 ms one way', { timeout: 900_000 }, async (t) => {
  if (!needsDocker(t)) return;
  work = mkdtempSync(join(tmpdir(), 'rocelab-dind-'));
  ok(sh('docker', ['network', 'create', '--label', 'io.rocelab.test=dind', network]), 'docker network create');
  networkCreated = true;
  startNode(0);
  startNode(1);
  await until('both DinD engines to answer', 90_000, () => (inner(0, ['info'], 10_000).status === 0 && inner(1, ['info'], 10_000).status === 0 ? true : null));

  // No registry: the image goes into each node as `docker save | docker load` would take it.
  const tar = join(work, 'rocelab.tar');
  ok(sh('docker', ['save', '-o', tar, IMAGE], { timeout: 300_000 }), `docker save ${IMAGE}`);
  for (const i of [0, 1]) ok(inner(i, ['load', '-q', '-i', tar], 300_000), `docker load into ${nodes[i]}`);
  rmSync(tar);

  ok(inner(0, ['swarm', 'init', '--advertise-addr', address(0)]), 'docker swarm init');
  const token = ok(inner(0, ['swarm', 'join-token', '-q', 'worker']), 'docker swarm join-token').trim();
  ok(inner(1, ['swarm', 'join', '--token', token, `${address(0)}:2377`]), 'docker swarm join');
  await until('both swarm nodes ready', 60_000, () => {
    const ls = inner(0, ['node', 'ls', '--format', '{{.Hostname}} {{.Status}}']).stdout;
    return nodes.every((n) => ls.includes(`${n} Ready`)) ? true : null;
  });

  const stack = cli(['stack', POD, '--workers', '2', '--place-on', nodes.join(',')]);
  assert.equal(stack.status, 0, stack.stderr);
  const stackFile = join(work, 'stack.yml');
  writeFileSync(stackFile, stack.stdout);
  const podToken = join(work, 'pod-token');
  writeFileSync(podToken, `${randomBytes(16).toString('hex')}\n`, { mode: 0o644 });

  const rows: Array<{ delayUs: number | null; via: string; msPerWindow: number; windows: number; traceHash: string }> = [];
  /** One run of the pod on the swarm with `us` µs one way between the nodes (null: no delayer). */
  const runOnSwarm = async (k: number, us: number | null, duration: string): Promise<(typeof rows)[0]> => {
    const queue = k + 1; // a fresh queue per run: the last run's delayer still holds its own
    const via = us === null ? 'none' : addDelay(0, us, queue);
    if (us !== null) addDelay(1, us, queue);
    const name = `rldind${k}`;
    const env = { ROCELAB_IMAGE: IMAGE, ROCELAB_REPO: ROOT, ROCELAB_POD_TOKEN_FILE: podToken, ROCELAB_DILATION: '0', ROCELAB_DURATION: duration };
    ok(sh('docker', ['-H', engine(0), 'stack', 'deploy', '--resolve-image', 'never', '-c', stackFile, name], { env }), `docker stack deploy ${name}`);
    // Neither Prometheus nor Grafana has an image in the nodes, and neither is measured here.
    inner(0, ['service', 'rm', `${name}_prometheus`, `${name}_grafana`]);
    const logs = () => inner(0, ['service', 'logs', '--raw', `${name}_controller`], 30_000).stdout;
    let line: string;
    try {
      line = await until(`the result of ${name} in the controller's log`, 300_000, () => logs().split('\n').reverse().find((l) => l.startsWith('{')) ?? null);
    } catch (err) {
      throw new Error(`${String(err)}\n${logs()}\n${inner(0, ['service', 'ps', '--no-trunc', `${name}_w1`, `${name}_w2`, `${name}_controller`]).stdout}`);
    }
    const r = JSON.parse(line) as RunResult;
    const placed = inner(0, ['service', 'ps', '--format', '{{.Name}} {{.Node}}', `${name}_w1`, `${name}_w2`]).stdout;
    assert.match(placed, new RegExp(`${name}_w1\\.1 ${nodes[0]}`), `w1 on ${nodes[0]}: ${placed}`);
    assert.match(placed, new RegExp(`${name}_w2\\.1 ${nodes[1]}`), `w2 on ${nodes[1]}: ${placed}`);
    inner(0, ['stack', 'rm', name]);
    await until(`stack ${name} gone`, 120_000, () => (inner(0, ['ps', '-aq', '--filter', `label=com.docker.stack.namespace=${name}`]).stdout.trim() === '' && inner(1, ['ps', '-aq', '--filter', `label=com.docker.stack.namespace=${name}`]).stdout.trim() === '' ? true : null));
    if (us !== null) for (const i of [0, 1]) removeDelay(i, via, queue);
    assert.ok(r.conservation, `${name}: conservation`);
    assert.equal(r.workers, 2);
    assert.ok(r.windows > 0, `${name}: windows`);
    // As bench/src/cli.ts, but without the start-up: Swarm scheduling tasks is no window's cost.
    return { delayUs: us, via, msPerWindow: (r.wallMs - r.startupMs) / r.windows, windows: r.windows, traceHash: r.traceHash };
  };
  const order = [...DELAYS_US, ...[...DELAYS_US].reverse()];
  for (const [k, us] of order.entries()) rows.push(await runOnSwarm(k, us, DURATION));
  // The protocol's floor, which no noise hides: every window waits for the other machine's
  // batches, so with FAR_US one way no window takes less than FAR_US, where without the delay on
  // the pod's path a window of this pod takes a few ms here (the figures above). A short run:
  // ≈ 100 windows.
  const farRun = await runOnSwarm(order.length, FAR_US, FAR_DURATION);
  t.diagnostic(`dind swarm at ${FAR_US} µs, ${FAR_DURATION}: ${JSON.stringify(farRun)}`);
  const table = DELAYS_US.map((us) => {
    const runs = rows.filter((r) => r.delayUs === us);
    return { delayUs: us, via: runs[0]!.via, msPerWindow: runs.map((r) => r.msPerWindow), mean: runs.reduce((a, r) => a + r.msPerWindow, 0) / runs.length, windows: runs.map((r) => r.windows) };
  });
  t.diagnostic(`dind swarm: ${JSON.stringify(table)}`);

  const procs = cli(['run', POD, '--duration', DURATION, '--mode', 'procs', '--json'], {}, 300_000);
  assert.equal(procs.status, 0, procs.stderr);
  const inproc = cli(['run', POD, '--duration', DURATION, '--json'], {}, 120_000);
  assert.equal(inproc.status, 0, inproc.stderr);
  const procsHash = (JSON.parse(procs.stdout) as RunResult).traceHash;
  assert.equal((JSON.parse(inproc.stdout) as RunResult).traceHash, procsHash);
  for (const row of rows) assert.equal(row.traceHash, procsHash, `the trace hash at ${row.delayUs} µs is procs'`);

  const farInproc = cli(['run', POD, '--duration', FAR_DURATION, '--json'], {}, 120_000);
  assert.equal(farInproc.status, 0, farInproc.stderr);
  assert.equal(farRun.traceHash, (JSON.parse(farInproc.stdout) as RunResult).traceHash, `the trace hash at ${FAR_US} µs is inproc's`);
  assert.ok(farRun.msPerWindow >= FAR_US / 1000, `${FAR_US} µs one way: each window should wait at least that long for the other node's batches, got ${farRun.msPerWindow.toFixed(2)} ms per window (is the delay on the pod's path?)`);
});
