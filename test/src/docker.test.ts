/**
 * The pod as containers, for real: a Docker engine, the rocelab image built from this build,
 * Compose bringing a pod up, a real Prometheus scraping it, and every dashboard query run
 * against that Prometheus.
 *
 * Needs a reachable Docker engine, `docker-compose`, a Node base image (NODE_IMAGE, e.g. the
 * offline one from deploy/docker/offline-base-image.sh) and a Prometheus image
 * (PROMETHEUS_IMAGE, e.g. deploy/docker/offline-prometheus-image.sh). Without them the tests
 * are skipped — unless ROCELAB_REQUIRE_DOCKER=1 (set by .ci/run), which makes that a failure.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import Docker from 'dockerode';
import { CloseCode, Connection, HandshakeError, podKey, type RunResult } from '@rocelab/runtime';
import { loadDashboards, panelQueries } from './dashboards.js';
import { captureLog, CLI, cli, ROOT, toolReady } from './harness.js';

// No helper image can be pulled here: no Ryuk reaper (every test removes what it started),
// and mapped ports are reached on localhost.
process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
process.env.TESTCONTAINERS_HOST_OVERRIDE ??= 'localhost';

const NODE_IMAGE = process.env.NODE_IMAGE ?? 'node:20-bookworm-slim';
const PROMETHEUS_IMAGE = process.env.PROMETHEUS_IMAGE ?? 'prom/prometheus:v2.53.0';
/** Built by these tests from the current build, so they never test a stale image. */
const IMAGE = 'rocelab:test';
const docker = new Docker();

/** Why the tests cannot run here, or null when they can. */
let missing: string | null = null;
let work = '';

function sh(cmd: string, args: string[], options: { env?: Record<string, string>; cwd?: string; timeout?: number } = {}): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd: options.cwd ?? ROOT, encoding: 'utf8', env: { ...process.env, ...options.env }, timeout: options.timeout ?? 600_000 });
}

async function imageExists(name: string): Promise<boolean> {
  return docker
    .getImage(name)
    .inspect()
    .then(() => true, () => false);
}

before(async () => {
  if (!(await docker.ping().then(() => true, () => false))) missing = 'no Docker engine is reachable';
  else if (sh('docker-compose', ['version', '--short']).status !== 0) missing = 'docker-compose is not installed';
  else if (!(await imageExists(NODE_IMAGE))) missing = `the Node base image ${NODE_IMAGE} is not present (set NODE_IMAGE; deploy/docker/offline-base-image.sh builds one)`;
  else if (!(await imageExists(PROMETHEUS_IMAGE))) missing = `the Prometheus image ${PROMETHEUS_IMAGE} is not present (set PROMETHEUS_IMAGE; deploy/docker/offline-prometheus-image.sh builds one)`;
  if (missing !== null) return;
  const stage = sh(process.execPath, ['scripts/stage-image.mjs']);
  assert.equal(stage.status, 0, `staging the image: ${stage.stderr}`);
  // As `npm run image` builds it: through the Engine API, so no CLI deprecation banner.
  const build = sh(process.execPath, ['scripts/build-image.mjs'], { env: { NODE_IMAGE, ROCELAB_IMAGE: IMAGE } });
  assert.equal(build.status, 0, `building the image: ${build.stdout}${build.stderr}`);
  assert.doesNotMatch(build.stderr, /legacy builder is deprecated/i);
  work = mkdtempSync(join(tmpdir(), 'rocelab-docker-'));
  chmodSync(work, 0o755); // the containers run as uid 10001 and read the pod from here
  // The small pod of the issue: 1 spine, 2 leaves in one pod, 2 ToRs, 4 hosts, with traffic,
  // and per-QP metrics on so that the optional DCQCN panels have series too.
  const clos = cli(['topology', 'clos', '--spines', '1', '--leaves-per-pod', '2', '--tors-per-pod', '2', '--pods', '1', '--hosts-per-tor', '2', '--name', 'small', '--seed', '5', '--permutation', '256MB', '--pingmesh', '100us']);
  assert.equal(clos.status, 0, clos.stderr);
  writeFileSync(join(work, 'small.yaml'), clos.stdout.replace(/^defaults:\n/m, 'defaults:\n  nic: {qpMetrics: true}\n'));
  // The same pod with a NIC pause storm from 200 µs (a second or two in), so that the
  // dashboards' fault annotations have an active fault to mark.
  const storm = cli(['topology', 'clos', '--spines', '1', '--leaves-per-pod', '2', '--tors-per-pod', '2', '--pods', '1', '--hosts-per-tor', '2', '--name', 'small', '--seed', '5', '--permutation', '256MB', '--pingmesh', '100us', '--pause-storm', 'h4@200us']);
  assert.equal(storm.status, 0, storm.stderr);
  writeFileSync(join(work, 'small-storm.yaml'), storm.stdout.replace(/^defaults:\n/m, 'defaults:\n  nic: {qpMetrics: true}\n'));
});

after(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

const needsDocker = (t: TestContext): boolean => toolReady(t, missing, 'ROCELAB_REQUIRE_DOCKER');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== null) return value;
    } catch (err) {
      last = err;
    }
    await sleep(1000);
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
}

/** A token file the containers' user (uid 10001) can read, as `rocelab run --mode docker` makes one. */
function containerTokenFile(name: string, token: string): string {
  const path = join(work, name);
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  if (process.getuid?.() === 0) chownSync(path, 10001, 10001);
  else chmodSync(path, 0o644);
  return path;
}

/**
 * Listening TCP sockets inside a container (read from its /proc/net/tcp{,6} with its own node),
 * but for loopback ones: on a user-defined network Docker's DNS resolver listens on 127.0.0.11.
 */
function listeningIn(id: string): Array<{ address: string; port: number }> {
  const read = "const f=require('fs');for(const n of ['tcp','tcp6'])try{process.stdout.write(f.readFileSync('/proc/net/'+n,'utf8'))}catch{}";
  const r = sh('docker', ['exec', id, 'node', '-e', read], { timeout: 30_000 });
  assert.equal(r.status, 0, `docker exec ${id}: ${r.stderr}`);
  const out: Array<{ address: string; port: number }> = [];
  for (const line of r.stdout.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[3] !== '0A' || f[1] === undefined) continue; // 0A: LISTEN
    const [hex, port] = f[1].split(':') as [string, string];
    // IPv4 in network order read as a little-endian word; IPv6 as four of them (all zero: ::).
    const address = hex.length === 8 ? [3, 2, 1, 0].map((i) => parseInt(hex.slice(2 * i, 2 * i + 2), 16)).join('.') : /^0+$/.test(hex) ? '::' : `ipv6:${hex}`;
    if (!address.startsWith('127.')) out.push({ address, port: parseInt(port, 16) });
  }
  return out;
}

/** Every variable of a container's environment that would give its token away. */
async function tokenInEnvironment(id: string, token: string): Promise<string[]> {
  const env = (await docker.getContainer(id).inspect()).Config.Env ?? [];
  return env.filter((v) => v.startsWith('ROCELAB_POD_TOKEN=') || v.includes(token));
}

interface PromResponse {
  status: string;
  error?: string;
  data?: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
}

async function promQuery(base: string, expr: string): Promise<PromResponse> {
  const res = await fetch(`${base}/api/v1/query`, { method: 'POST', body: new URLSearchParams({ query: expr }) });
  return (await res.json()) as PromResponse;
}

async function scalar(base: string, expr: string): Promise<number | null> {
  const r = await promQuery(base, expr);
  const v = r.data?.result[0]?.value[1];
  return v === undefined ? null : Number(v);
}

/** A compose project brought up for one test, torn down by `down()` whatever happened. */
class ComposePod {
  readonly project = `rocelabtest${randomBytes(4).toString('hex')}`;
  readonly env: Record<string, string>;

  constructor(
    private readonly file: string,
    ports: { controller: number; prometheus: number; grafana: number },
    extraEnv: Record<string, string> = {},
  ) {
    this.env = {
      ROCELAB_IMAGE: IMAGE,
      PROMETHEUS_IMAGE,
      ROCELAB_DILATION: '1000',
      CONTROLLER_PORT: String(ports.controller),
      PROMETHEUS_PORT: String(ports.prometheus),
      GRAFANA_PORT: String(ports.grafana),
      ...extraEnv,
    };
  }

  compose(...args: string[]): SpawnSyncReturns<string> {
    return sh('docker-compose', ['-p', this.project, '-f', this.file, '--project-directory', ROOT, ...args], { env: this.env });
  }

  /**
   * The offline route of docs/containers.md: a plain `up`, no service named. Grafana is in a
   * profile, so its image, which cannot be had offline, is not pulled (its config is tested by
   * the queries).
   */
  up(): void {
    const r = this.compose('up', '-d', '--no-build');
    assert.equal(r.status, 0, `docker-compose up: ${r.stdout}${r.stderr}`);
  }

  async containers(): Promise<Docker.ContainerInfo[]> {
    return docker.listContainers({ all: true, filters: { label: [`com.docker.compose.project=${this.project}`] } });
  }

  async down(): Promise<void> {
    const r = this.compose('down', '-v', '-t', '3');
    // Whatever Compose could not remove goes by label, so a failed run leaves nothing behind.
    for (const c of await this.containers()) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
    const networks = await docker.listNetworks({ filters: { label: [`com.docker.compose.project=${this.project}`] } });
    for (const n of networks) await docker.getNetwork(n.Id).remove().catch(() => undefined);
    if (r.status !== 0) process.stderr.write(`docker-compose down: ${r.stderr}\n`);
  }

  logs(): string {
    return this.compose('logs', '--no-color', '--tail', '20').stdout;
  }
}

async function composePod(t: TestContext, topology: string, composeFile: string | null, extraEnv: Record<string, string> = {}): Promise<{ pod: ComposePod; prometheus: string; controller: string }> {
  let file = composeFile;
  if (file === null) {
    const compose = cli(['compose', topology]);
    assert.equal(compose.status, 0, compose.stderr);
    file = join(work, `${randomBytes(3).toString('hex')}-compose.yml`);
    writeFileSync(file, compose.stdout);
  }
  const ports = { controller: await freePort(), prometheus: await freePort(), grafana: await freePort() };
  const pod = new ComposePod(file, ports, extraEnv);
  t.after(() => pod.down());
  pod.up();
  return { pod, prometheus: `http://127.0.0.1:${ports.prometheus}`, controller: `http://127.0.0.1:${ports.controller}` };
}

test('the offline image scripts build once per inputs: a second call reuses the image (same ID) and leaves no dangling image', { timeout: 300_000 }, async (t) => {
  if (!needsDocker(t)) return;
  const dangling = (): string[] => sh('docker', ['images', '--quiet', '--filter', 'dangling=true', '--no-trunc']).stdout.split('\n').filter(Boolean).sort();
  const scripts: Array<[string, string]> = [['deploy/docker/offline-base-image.sh', 'rocelab/node-offline:reuse-test']];
  if (sh('sh', ['-c', 'command -v prometheus']).status === 0) scripts.push(['deploy/docker/offline-prometheus-image.sh', 'rocelab/prometheus-offline:reuse-test']);
  else t.diagnostic('no prometheus binary here: offline-prometheus-image.sh is checked by the base image script, which shares its logic (rootfs.sh)');
  for (const [script, name] of scripts) {
    try {
      // An image of that name from other inputs (one file, unlabelled, as an older script built it): replaced, and removed.
      const stale = spawnSync('sh', ['-c', `tar -C /etc -c hostname | docker import - ${name}`], { encoding: 'utf8' });
      assert.equal(stale.status, 0, stale.stderr);
      const staleId = (await docker.getImage(name).inspect()).Id;
      const first = sh(script, [name]);
      assert.equal(first.status, 0, `${script}: ${first.stderr}`);
      assert.equal(first.stdout.trim(), name);
      const id = (await docker.getImage(name).inspect()).Id;
      assert.notEqual(id, staleId, 'other inputs: built again');
      assert.equal(await imageExists(staleId), false, `${script}: the image it replaced is removed, not left dangling`);
      const before = dangling();
      for (let i = 0; i < 2; i++) {
        const again = sh(script, [name]);
        assert.equal(again.status, 0, `${script}: ${again.stderr}`);
        assert.equal(again.stdout.trim(), name);
      }
      assert.equal((await docker.getImage(name).inspect()).Id, id, `${script}: the same image, not a rebuild`);
      assert.deepEqual(dangling(), before, `${script}: no dangling image left by calls that reuse it`);
    } finally {
      sh('docker', ['image', 'rm', name]);
    }
  }
});

test('the rocelab image runs as a numeric non-root user; its controller reads the token from a file, listens on its pod-network address only, and refuses a member with the wrong pod token', { timeout: 300_000 }, async (t) => {
  if (!needsDocker(t)) return;
  const { GenericContainer, Wait } = await import('testcontainers');
  assert.equal((await docker.getImage(IMAGE).inspect()).Config.User, '10001:10001');
  const tokenFile = containerTokenFile('controller-token', 'the-pod-secret');
  const controller = await new GenericContainer(IMAGE)
    .withEnvironment({ ROCELAB_ROLE: 'controller', ROCELAB_TOPOLOGY: '/pod/small.yaml', ROCELAB_POD_TOKEN_FILE: '/run/secrets/rocelab_pod_token' })
    .withLabels({ 'io.rocelab.pod': 'small' })
    .withBindMounts([
      { source: work, target: '/pod', mode: 'ro' },
      { source: tokenFile, target: '/run/secrets/rocelab_pod_token', mode: 'ro' },
    ])
    .withExposedPorts(7000)
    .withWaitStrategy(Wait.forHttp('/status', 7000))
    .withStartupTimeout(60_000)
    .start();
  try {
    const base = `${controller.getHost()}:${controller.getMappedPort(7000)}`;
    const status = (await (await fetch(`http://${base}/status`)).json()) as { pod: string; state: string; nodesTotal: number; nodesUp: number };
    assert.deepEqual([status.pod, status.state, status.nodesTotal, status.nodesUp], ['small', 'starting', 9, 0]);
    const { log } = captureLog('silent');
    const identity = { node: 'h1', role: 'member', link: '', nodes: ['h1'], linkUrl: 'ws://h1:1/link', metricsUrls: [] };
    await assert.rejects(Connection.connect(`ws://${base}/control`, podKey('a-guess'), identity, log), (err: unknown) => {
      assert.ok(err instanceof HandshakeError);
      assert.equal(err.code, CloseCode.auth);
      return true;
    });
    // Nothing was lost: the controller still waits for its members.
    const again = (await (await fetch(`http://${base}/status`)).json()) as { state: string };
    assert.equal(again.state, 'starting');
    // The token came from the file (the fault API takes it) and is nowhere in the environment.
    assert.equal((await fetch(`http://${base}/faults`, { headers: { authorization: 'Bearer the-pod-secret' } })).status, 200);
    assert.deepEqual(await tokenInEnvironment(controller.getId(), 'the-pod-secret'), []);
    // It listens on its address on the container's network, not on every interface.
    const ip = Object.values((await docker.getContainer(controller.getId()).inspect()).NetworkSettings.Networks)[0]!.IPAddress;
    assert.deepEqual(listeningIn(controller.getId()), [{ address: ip, port: 7000 }]);
  } finally {
    await controller.stop({ timeout: 2_000 });
  }
});

test('a small pod under docker-compose: promtool-clean /metrics, and every dashboard query returns series from a real Prometheus', { timeout: 600_000 }, async (t) => {
  if (!needsDocker(t)) return;
  const token = randomBytes(12).toString('hex');
  const { pod, prometheus, controller } = await composePod(t, join(work, 'small-storm.yaml'), null, { ROCELAB_POD_TOKEN_FILE: containerTokenFile('compose-token', token) });
  const targets = 9 + 1;
  try {
    await until(`${targets} targets up in Prometheus`, 180_000, async () => ((await scalar(prometheus, 'count(up == 1)')) === targets ? true : null));
  } catch (err) {
    throw new Error(`${String(err)}\n${pod.logs()}`);
  }

  // Every node joined with the token of ROCELAB_POD_TOKEN_FILE (a Compose secret), which no environment shows.
  assert.equal((await fetch(`${controller}/faults`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
  for (const c of await pod.containers()) assert.deepEqual(await tokenInEnvironment(c.Id, token), [], c.Names[0]);
  const nodes = (await pod.containers()).filter((c) => c.Labels['io.rocelab.node'] !== undefined);
  assert.equal(nodes.length, 9);
  for (const c of nodes) {
    const ip = Object.values(c.NetworkSettings.Networks)[0]!.IPAddress;
    const text = await (await fetch(`http://${ip}:9100/metrics`)).text();
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(check.status, 0, `${c.Labels['io.rocelab.node']}: ${check.stdout}${check.stderr}`);
    assert.equal(`${check.stdout}${check.stderr}`.trim(), '', `${c.Labels['io.rocelab.node']}: promtool findings`);
  }

  // Two scrapes of every target, so that rate() over $__rate_interval has two points.
  await until('two scrapes of every target', 120_000, async () => ((await scalar(prometheus, 'min(count_over_time(up[5m]))')) ?? 0) >= 2 ? true : null);
  const failures: string[] = [];
  let count = 0;
  for (const { file, dashboard } of loadDashboards(ROOT)) {
    for (const q of panelQueries(dashboard)) {
      count++;
      const r = await promQuery(prometheus, q.expr);
      if (r.status !== 'success') failures.push(`${file} / ${q.panel} / ${q.refId}: error ${r.error}: ${q.expr}`);
      else if (r.data!.result.length === 0) failures.push(`${file} / ${q.panel} / ${q.refId}: no series: ${q.expr}`);
    }
  }
  assert.ok(count > 30, `expected every panel's queries, found ${count}`);
  assert.deepEqual(failures, [], `${failures.length} of ${count} dashboard queries failed`);
  const causality = await scalar(prometheus, 'sum(rocelab_causality_violations_total)');
  assert.equal(causality, 0);

  // A node's process crashes (kill -9 from the host, as the OOM killer would): Compose's restart
  // policy starts its container again and the member rejoins the running pod.
  const tor1 = nodes.find((c) => c.Labels['io.rocelab.node'] === 'tor1')!;
  const pid = (await docker.getContainer(tor1.Id).inspect()).State.Pid;
  process.kill(pid, 'SIGKILL');
  await until('tor1 restarted by its restart policy', 60_000, async () => ((await docker.getContainer(tor1.Id).inspect()).RestartCount >= 1 ? true : null));
  await until('tor1 back in the pod', 120_000, async () => (/lost member is back/.test(pod.compose('logs', '--no-color', 'controller').stdout) ? true : null));
  const status = (await (await fetch(`${controller}/status`)).json()) as { state: string; nodesUp: number };
  assert.deepEqual([status.state, status.nodesUp], ['running', 9]);
});

test('rocelab run --mode docker gives the trace hash, the summary, and the trace and capture bytes of --mode procs', { timeout: 600_000 }, (t) => {
  if (!needsDocker(t)) return;
  const file = join(work, 'small.yaml');
  const outputs = (['procs', 'docker'] as const).map((mode) => {
    const trace = mkdtempSync(join(work, `trace-${mode}-`));
    const pcap = mkdtempSync(join(work, `pcap-${mode}-`));
    // The containers (uid 10001) reach DIR/.parts through these: mkdtemp makes them 0700.
    for (const dir of [trace, pcap]) chmodSync(dir, 0o755);
    const r = cli(['run', file, '--duration', '1ms', '--mode', mode, '--image', IMAGE, '--json', '--trace', trace, '--pcap', pcap, '--pcap-ports', 'h1:p0,tor1:up1']);
    assert.equal(r.status, 0, `${mode}: ${r.stderr}`);
    const files = Object.fromEntries([
      ...readdirSync(trace).map((f) => [`trace/${f}`, readFileSync(join(trace, f))] as const),
      ...readdirSync(pcap).map((f) => [`pcap/${f}`, readFileSync(join(pcap, f))] as const),
    ]);
    return { result: r.json!, files };
  });
  const [procs, containers] = outputs as [(typeof outputs)[0], (typeof outputs)[0]];
  assert.equal(containers.result.mode, 'docker');
  assert.equal(containers.result.traceHash, procs.result.traceHash);
  assert.deepEqual(containers.result.packets, procs.result.packets);
  assert.deepEqual(containers.result.summary, procs.result.summary);
  assert.deepEqual(containers.result.probes, procs.result.probes);
  assert.ok(containers.result.conservation);
  assert.deepEqual(Object.keys(containers.files).sort(), ['pcap/h1-p0.pcap', 'pcap/tor1-up1.pcap', 'trace/events.csv', 'trace/fct.csv', 'trace/packet-events.csv', 'trace/pfc.csv', 'trace/probes.csv', 'trace/qp-events.csv', 'trace/queue.csv', 'trace/rates.csv']);
  for (const [name, bytes] of Object.entries(procs.files)) assert.ok(bytes.equals(containers.files[name]!), `${name} differs between procs and docker`);
});

test('an app pod runs in containers as in one process: the same trace hash and the same app outcomes (the app bundled in each container from the mounted directory)', { timeout: 600_000 }, (t) => {
  if (!needsDocker(t)) return;
  const file = join(ROOT, 'examples', 'rdma-hello', 'pod.yaml');
  const [inproc, containers] = (['inproc', 'docker'] as const).map((mode) => {
    const r = cli(['run', file, '--duration', '20us', '--mode', mode, '--image', IMAGE, '--json']);
    assert.equal(r.status, 0, `${mode}: ${r.stderr}`);
    return r.json!;
  }) as [RunResult, RunResult];
  assert.equal(containers.mode, 'docker');
  assert.equal(containers.traceHash, inproc.traceHash);
  assert.deepEqual(containers.apps, inproc.apps);
  assert.deepEqual(containers.apps.map((a) => a.status), ['finished', 'finished']);
});

test('Debian\'s ibv_rc_pingpong runs unmodified in containers as in one process: the image carries the rocelab0 device and the program, the same trace hash and output', { timeout: 600_000 }, (t) => {
  if (!needsDocker(t)) return;
  const file = join(ROOT, 'test', 'fixtures', 'native', 'pingpong.yaml');
  const [inproc, containers] = (['inproc', 'docker'] as const).map((mode) => {
    // A container cannot sandbox a program (no user namespaces there): the user's opt-out lets it run.
    const r = cli(['run', file, '--duration', '5ms', '--mode', mode, '--image', IMAGE, '--json'], mode === 'docker' ? { ROCELAB_PROGRAMS_UNSANDBOXED: '1' } : {});
    assert.equal(r.status, 0, `${mode}: ${r.stderr}`);
    return r.json!;
  }) as [RunResult, RunResult];
  assert.equal(containers.traceHash, inproc.traceHash);
  assert.deepEqual(containers.programs.map((p) => [p.status, p.exitCode, p.stdout]), inproc.programs.map((p) => [p.status, p.exitCode, p.stdout]));
  assert.match(containers.programs[1]!.stdout, /100 iters in [\d.]+ seconds/);
});

test('hostile apps in containers (two workers): each stopped with the error and at the instant it is stopped in one process, the pod runs on, exit 3', { timeout: 600_000 }, (t) => {
  if (!needsDocker(t)) return;
  const file = join(ROOT, 'test', 'fixtures', 'apps', 'hostile.yaml');
  const [inproc, containers] = (['inproc', 'docker'] as const).map((mode) => {
    const r = cli(['run', file, '--duration', '1ms', '--mode', mode, ...(mode === 'docker' ? ['--workers', '2'] : []), '--image', IMAGE, '--json'], {}, 600_000);
    assert.equal(r.status, 3, `${mode}: ${r.stderr}`);
    return r.json!;
  }) as [RunResult, RunResult];
  assert.equal(containers.mode, 'docker');
  assert.equal(containers.traceHash, inproc.traceHash);
  assert.deepEqual(containers.apps, inproc.apps);
  assert.equal(containers.apps.filter((a) => a.status === 'failed').length, 18);
  assert.equal(containers.flowTotals.completed, 1);
});

/** The containers of this machine's runs of pod `small` (label io.rocelab.pod), by name; with `runs`, only those of runs not in it that are running. */
async function smallPodContainers(exceptRuns?: Set<string>): Promise<Array<{ id: string; name: string }>> {
  const list = await docker.listContainers({ all: exceptRuns === undefined, filters: { label: ['io.rocelab.pod=small'] } });
  return list
    .filter((c) => exceptRuns === undefined || !exceptRuns.has(c.Labels['io.rocelab.run'] ?? ''))
    .map((c) => ({ id: c.Id, name: c.Names[0]!.replace(/^\//, '') }));
}

/** Until the controller container of the run says the pod runs (its /status on the run's network). */
async function untilPodRuns(exceptRuns: Set<string>): Promise<void> {
  await until('the pod running', 120_000, async () => {
    const controller = (await smallPodContainers(exceptRuns)).find((c) => c.name.endsWith('-controller'));
    if (controller === undefined) return null;
    const ip = Object.values((await docker.getContainer(controller.id).inspect()).NetworkSettings.Networks)[0]?.IPAddress;
    if (!ip) return null;
    const status = await fetch(`http://${ip}:7000/status`).then((r) => r.json() as Promise<{ state: string }>, () => null);
    return status?.state === 'running' ? true : null;
  });
}

/**
 * `rocelab run --mode docker` on the small pod, in the background: the run's output once it ends, and
 * the runs that were there before it, so that only its own running containers are looked at (a
 * container of an earlier run that is still being removed must not stand in for one of this run's).
 */
async function dockerRunInBackground(extra: string[]): Promise<{ before: Set<string>; done: Promise<{ status: number | null; stdout: string; stderr: string }> }> {
  const before = new Set((await docker.listContainers({ all: true, filters: { label: ['io.rocelab.run'] } })).map((c) => c.Labels['io.rocelab.run']!));
  const child = spawn(process.execPath, [CLI, 'run', join(work, 'small.yaml'), '--duration', '4ms', '--dilation', '4000', '--mode', 'docker', '--image', IMAGE, '--json', ...extra], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return { before, done: new Promise((resolve) => child.once('exit', (status) => resolve({ status, stdout, stderr }))) };
}

test('a member container killed mid-run is survived and, with --respawn, rejoins; a killed controller container ends the run with a clear error; no container is left', { timeout: 600_000 }, async (t) => {
  if (!needsDocker(t)) return;
  const run = await dockerRunInBackground(['--respawn']);
  const tor1 = await until('tor1 running', 120_000, async () => (await smallPodContainers(run.before)).find((c) => c.name.endsWith('-tor1')) ?? null);
  // Into the running pod, well before its end: containers start at their own pace on a busy machine.
  await untilPodRuns(run.before);
  await new Promise((r) => setTimeout(r, 2_000));
  await docker.getContainer(tor1.id).kill();
  const { status, stdout, stderr } = await run.done;
  assert.equal(status, 1, `a loss no fault asked for exits 1:\n${stderr}`);
  const result = JSON.parse(stdout) as { conservation: boolean; lostNodes: Array<{ node: string; cause: string; restartedAtNs: number | null }>; droppedByReason: Record<string, number> };
  assert.ok(result.conservation, 'conservation holds with the lost frames counted');
  const lost = result.lostNodes.filter((n) => n.cause === 'lost');
  assert.deepEqual(lost.map((n) => n.node), ['tor1']);
  assert.ok(lost[0]!.restartedAtNs !== null, 'its container started again and it rejoined');
  assert.match(stderr, /rocelab: member tor1 container exited \(137\); the pod carries on without it, and it is started again to rejoin/);
  assert.match(stderr, /rocelab run: tor1 was lost at [\d.]+ ms \(its process died; back at [\d.]+ ms\)/);
  assert.deepEqual(await smallPodContainers(), [], 'every container of the run is gone');

  const second = await dockerRunInBackground([]);
  const controller = await until('the controller running', 120_000, async () => (await smallPodContainers(second.before)).find((c) => c.name.endsWith('-controller')) ?? null);
  await untilPodRuns(second.before);
  await new Promise((r) => setTimeout(r, 1_000));
  await docker.getContainer(controller.id).kill();
  const ended = await second.done;
  assert.notEqual(ended.status, 0);
  assert.match(ended.stderr, /the controller container exited with 137 without a result/);
  assert.deepEqual(await smallPodContainers(), [], 'every container of the run is gone');
});

/** A built-in drill inproc and with one container per node: it passes, with the same hashes, faults (as drawn) and numbers. */
function drillInContainers(name: string, variants: string[]): DrillRun {
  const drill = join(ROOT, 'drills', `${name}.yaml`);
  const [inproc, containers] = (['inproc', 'docker'] as const).map((mode) => {
    const out = join(work, `drill-${name}-${mode}`); // made by the CLI (0755): the containers reach out/<variant>/trace
    const r = cli(['drill', 'run', drill, '--mode', mode, '--image', IMAGE, '--out', out, '--json'], {}, 900_000);
    assert.equal(r.status, 0, `${mode}: exit ${r.status}\n${r.stdout.slice(0, 1500)}\n${r.stderr.slice(-1500)}`);
    return JSON.parse(r.stdout) as DrillRun;
  });
  assert.equal(containers!.pass, true);
  assert.deepEqual(containers!.variants.map((v) => [v.name, v.run.mode]), variants.map((v) => [v, 'docker']));
  assert.deepEqual(
    containers!.variants.map((v) => [v.name, v.run.traceHash, v.faults, v.expectations.map((e) => e.measured)]),
    inproc!.variants.map((v) => [v.name, v.run.traceHash, v.faults, v.expectations.map((e) => e.measured)]),
  );
  return containers!;
}

type DrillRun = { pass: boolean; variants: Array<{ name: string; run: { mode: string; traceHash: string }; faults: Array<{ target: string }>; expectations: Array<{ measured: string }> }> };

test('rocelab run --mode docker: the token is a read-only file of uid 10001 in every container and in no environment; every rocelab socket listens on the pod network', { timeout: 300_000 }, async (t) => {
  if (!needsDocker(t)) return;
  const runsBefore = new Set((await docker.listContainers({ all: true, filters: { label: ['io.rocelab.run'] } })).map((c) => c.Labels['io.rocelab.run']));
  // Paced so that the containers live for a while (3 ms at 5,000: 15 s) while we look at them.
  const child = spawn(process.execPath, [CLI, 'run', join(work, 'small.yaml'), '--mode', 'docker', '--image', IMAGE, '--duration', '3ms', '--dilation', '5000', '--json'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGINT');
  });
  const ours = await until('the pod of 1 controller and 9 nodes running', 120_000, async () => {
    const running = (await docker.listContainers({ filters: { label: ['io.rocelab.run'] } })).filter((c) => !runsBefore.has(c.Labels['io.rocelab.run']));
    return running.length === 10 ? running : null;
  });
  const read = "const f=require('fs'),p='/run/secrets/rocelab_pod_token',s=f.statSync(p);process.stdout.write(JSON.stringify({uid:s.uid,mode:s.mode&0o777,token:f.readFileSync(p,'utf8').trim()}))";
  const controller = ours.find((c) => c.Names[0]!.endsWith('-controller'))!;
  // Every member joined (so every link server listens) once the pod runs.
  const controllerIp = Object.values(controller.NetworkSettings.Networks)[0]!.IPAddress;
  await until('the pod running', 60_000, async () => (((await (await fetch(`http://${controllerIp}:7000/status`)).json()) as { state: string }).state === 'running' ? true : null));
  const fromFile = JSON.parse(sh('docker', ['exec', controller.Id, 'node', '-e', read], { timeout: 30_000 }).stdout) as { uid: number; mode: number; token: string };
  assert.equal(fromFile.uid, process.getuid?.() === 0 ? 10001 : process.getuid?.());
  assert.equal(fromFile.mode, process.getuid?.() === 0 ? 0o400 : 0o444);
  assert.match(fromFile.token, /^[0-9a-f]{48}$/);
  for (const c of ours) {
    const info = await docker.getContainer(c.Id).inspect();
    assert.ok(info.Config.Env.includes('ROCELAB_POD_TOKEN_FILE=/run/secrets/rocelab_pod_token'), c.Names[0]);
    assert.deepEqual(await tokenInEnvironment(c.Id, fromFile.token), [], `${c.Names[0]}: the token in its environment`);
    assert.deepEqual(info.Mounts.filter((m) => m.Destination === '/run/secrets/rocelab_pod_token').map((m) => m.RW), [false], `${c.Names[0]}: mounted read-only`);
    const ip = Object.values(info.NetworkSettings.Networks)[0]!.IPAddress;
    const sockets = listeningIn(c.Id);
    assert.ok(sockets.length > 0 && sockets.every((l) => l.address === ip), `${c.Names[0]} listens on ${JSON.stringify(sockets)}, expected only ${ip}`);
  }
  assert.equal(await exited, 0, stderr);
  assert.equal((JSON.parse(stdout) as { conservation: boolean }).conservation, true);
});

test('the nic-pause-storm drill passes with one container per node, with the trace hashes and numbers of inproc', { timeout: 900_000 }, (t) => {
  if (!needsDocker(t)) return;
  drillInContainers('nic-pause-storm', ['no-watchdog', 'switch-watchdog', 'nic-watchdog']);
});

test('the chaos-kill-restart drill passes with one container per node: the same draws (spine1, h4), trace hash and numbers as inproc', { timeout: 900_000 }, (t) => {
  if (!needsDocker(t)) return;
  const run = drillInContainers('chaos-kill-restart', ['default']);
  assert.deepEqual(run.variants[0]!.faults.map((f) => f.target), ['spine1', 'h4']);
});

test('the committed docker-compose.yml brings up 27 scrape targets: 16 hosts, 10 switches and the controller', { timeout: 600_000 }, async (t) => {
  if (!needsDocker(t)) return;
  const { pod, prometheus, controller } = await composePod(t, '', join(ROOT, 'docker-compose.yml'));
  try {
    await until('count(up == 1) == 27', 300_000, async () => ((await scalar(prometheus, 'count(up == 1)')) === 27 ? true : null));
  } catch (err) {
    throw new Error(`${String(err)}\n${pod.logs()}`);
  }
  const status = cli(['status', '--controller', controller, '--json']);
  assert.equal(status.status, 0, status.stderr);
  const view = JSON.parse(status.stdout) as { pod: string; state: string; nodesUp: number; nodesTotal: number };
  assert.deepEqual([view.pod, view.state, view.nodesUp, view.nodesTotal], ['default', 'running', 26, 26]);
  // The controller listens on its pod-network address only; its port is published on the host's loopback only.
  const ctl = (await pod.containers()).find((c) => c.Labels['io.rocelab.role'] === 'controller')!;
  const info = await docker.getContainer(ctl.Id).inspect();
  const ip = Object.values(info.NetworkSettings.Networks)[0]!.IPAddress;
  assert.deepEqual(listeningIn(ctl.Id), [{ address: ip, port: 7000 }]);
  assert.deepEqual(info.HostConfig.PortBindings?.['7000/tcp']?.map((b: { HostIp: string }) => b.HostIp), ['127.0.0.1']);
  assert.deepEqual(await tokenInEnvironment(ctl.Id, 'rocelab-dev-token'), []);
});

/** What a swarm stack left: its services, networks, configs and secrets (by Docker's stack label). */
function stackLeftovers(name: string): string[] {
  return ['service', 'network', 'config', 'secret'].flatMap((kind) =>
    sh('docker', [kind, 'ls', '-q', '--filter', `label=com.docker.stack.namespace=${name}`])
      .stdout.split('\n')
      .filter((id) => id !== '')
      .map((id) => `${kind} ${id}`),
  );
}

test('rocelab stack on a one-node swarm: every node up through the controller and Prometheus, the trace hash of procs, and the machine as it was after', { timeout: 900_000 }, async (t) => {
  if (!needsDocker(t)) return;
  const swarmState = () => sh('docker', ['info', '--format', '{{.Swarm.LocalNodeState}}']).stdout.trim();
  // dind-swarm.test.ts may run meanwhile (the runner runs two files at once): its bridge network
  // comes and goes on its own, and is none of this stack's.
  const networks = () => sh('docker', ['network', 'ls', '--format', '{{.Name}}']).stdout.split('\n').filter((n) => n !== '' && !n.startsWith('rocelab-dind-')).sort();
  const before = swarmState();
  const networksBefore = networks();
  if (before !== 'active') {
    const init = sh('docker', ['swarm', 'init', '--advertise-addr', '127.0.0.1']);
    assert.equal(init.status, 0, `docker swarm init: ${init.stderr}`);
  }
  const name = `rocelabswarm${randomBytes(3).toString('hex')}`;
  t.after(async () => {
    sh('docker', ['stack', 'rm', name]);
    // stack rm returns before the tasks and the overlay are gone; wait (bounded) for them.
    for (let i = 0; i < 60 && stackLeftovers(name).length > 0; i++) await sleep(1000);
    if (before !== 'active') {
      sh('docker', ['swarm', 'leave', '--force']);
      // Leaving keeps the bridge swarm made for published ports; it was not here before.
      if (!networksBefore.includes('docker_gwbridge')) sh('docker', ['network', 'rm', 'docker_gwbridge']);
    }
    assert.equal(swarmState(), before, 'the swarm state is as it was');
    assert.deepEqual(networks(), networksBefore, 'the networks are as they were');
    assert.deepEqual(stackLeftovers(name), [], 'nothing of the stack is left');
  });
  const stack = cli(['stack', join(work, 'small.yaml'), '--workers', '2']);
  assert.equal(stack.status, 0, stack.stderr);
  const file = join(work, `${name}.yml`);
  writeFileSync(file, stack.stdout);
  const ports = { controller: await freePort(), prometheus: await freePort() };
  const env = {
    ROCELAB_IMAGE: IMAGE,
    PROMETHEUS_IMAGE,
    ROCELAB_REPO: ROOT,
    ROCELAB_POD_TOKEN_FILE: containerTokenFile(`${name}-token`, 'the-swarm-pod-secret'),
    // 2 ms of virtual time at 20,000 wall s per virtual s: 40 s to see every node up, then the result.
    ROCELAB_DILATION: '20000',
    ROCELAB_DURATION: '2ms',
    CONTROLLER_PORT: String(ports.controller),
    PROMETHEUS_PORT: String(ports.prometheus),
  };
  const deploy = sh('docker', ['stack', 'deploy', '--resolve-image', 'never', '-c', file, name], { env });
  assert.equal(deploy.status, 0, `docker stack deploy: ${deploy.stdout}${deploy.stderr}`);
  const controller = `http://127.0.0.1:${ports.controller}`;
  const prometheus = `http://127.0.0.1:${ports.prometheus}`;
  const logs = () => sh('docker', ['service', 'logs', '--raw', `${name}_controller`]).stdout;
  const nodes = 9; // small: 1 spine, 2 leaves, 2 ToRs, 4 hosts
  try {
    await until('every node up through the controller', 240_000, async () => {
      const s = (await (await fetch(`${controller}/status`)).json()) as { nodesUp: number; nodesTotal: number; state: string };
      return s.nodesUp === nodes && s.nodesTotal === nodes ? s : null;
    });
    await until('every node and the controller scraped by Prometheus', 120_000, async () => ((await scalar(prometheus, 'count(up == 1)')) === nodes + 1 ? true : null));
  } catch (err) {
    throw new Error(`${String(err)}\n${logs()}`);
  }
  const line = await until('the result in the controller service log', 240_000, async () => logs().split('\n').reverse().find((l) => l.startsWith('{')) ?? null);
  const swarm = JSON.parse(line) as RunResult;
  const procs = cli(['run', join(work, 'small.yaml'), '--duration', '2ms', '--mode', 'procs', '--json']);
  assert.equal(procs.status, 0, procs.stderr);
  const local = JSON.parse(procs.stdout) as RunResult;
  assert.equal(swarm.traceHash, local.traceHash);
  assert.deepEqual(swarm.packets, local.packets);
  assert.ok(swarm.conservation);
  assert.equal(swarm.mode, 'docker'); // the controller's own word for a pod of containers
});
