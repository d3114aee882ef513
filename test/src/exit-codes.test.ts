/**
 * Exit codes as docs/errors.md says: 2 only for bad input (an environment variable, the
 * topology, the token file), 1 for a process that failed — a member no controller answers, a
 * member its controller refuses, a run whose member died — and for bugs.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Controller } from '@rocelab/controller';
import { loadTopologyFile } from '@rocelab/topology';
import { pino } from 'pino';
import { cli, fixture, ROOT } from './harness.js';

const TREE = fixture('tree.yaml');
const HOST = join(ROOT, 'services', 'host', 'dist', 'main.js');
const CONTROLLER = join(ROOT, 'services', 'controller', 'dist', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'rocelab-exit-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const tokenFile = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
};

/** The environment of a process started for one test, without the runner's ROCELAB_* settings. */
function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ROCELAB_')));
  return { ...base, ROCELAB_LOG_LEVEL: 'error', ...extra };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A process run without blocking this one's event loop (a controller may live here). */
function run(script: string, vars: Record<string, string>, timeoutMs = 30_000): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script], { cwd: ROOT, env: env(vars), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

const member = (vars: Record<string, string>) => ({ ROCELAB_TOPOLOGY: TREE, ROCELAB_NODE: 'h1', ...vars });

test('a member no controller answers exits 1, after its connect timeout', { timeout: 30_000 }, async () => {
  const r = await run(HOST, member({ ROCELAB_CONTROLLER: `ws://127.0.0.1:${await freePort()}/control`, ROCELAB_CONNECT_TIMEOUT_MS: '300' }));
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /member ended with an error/);
});

test('a member its controller refuses (another pod token, a node it does not expect) exits 1', { timeout: 30_000 }, async () => {
  const pod = loadTopologyFile(TREE);
  const controller = new Controller({ pod, seed: 1, durationPs: 1e9, dilation: 0, token: 'the-pod-token', expected: [{ id: 'h1', nodes: ['h1'] }], mode: 'procs', log: pino({ level: 'silent' }) });
  const { url } = await controller.listen();
  try {
    const wrongToken = await run(HOST, member({ ROCELAB_CONTROLLER: url, ROCELAB_POD_TOKEN_FILE: tokenFile('other', 'another-pods-token\n') }));
    assert.equal(wrongToken.code, 1, wrongToken.stderr);
    assert.match(wrongToken.stderr, /the pod token differs/);
    const stranger = await run(HOST, { ...member({ ROCELAB_CONTROLLER: url, ROCELAB_POD_TOKEN_FILE: tokenFile('right', 'the-pod-token\n') }), ROCELAB_NODE: 'h2' });
    assert.equal(stranger.code, 1, stranger.stderr);
    assert.match(stranger.stderr, /is not expected in this run/);
  } finally {
    controller.stop();
    await controller.close();
  }
});

test('a member with a bad environment exits 2: the token in its environment, an empty token file, bad HTTP limits, a bad connect or hang timeout', { timeout: 30_000 }, async () => {
  const url = `ws://127.0.0.1:${await freePort()}/control`;
  for (const [vars, message] of [
    [{ ROCELAB_POD_TOKEN: 's3cret' }, /ROCELAB_POD_TOKEN is set in this process's environment/],
    [{ ROCELAB_POD_TOKEN_FILE: tokenFile('empty', '\n') }, /ROCELAB_POD_TOKEN_FILE=.*empty: expected the pod token, got an empty file/],
    [{ ROCELAB_POD_TOKEN_FILE: join(dir, 'missing') }, /expected a readable file holding the pod token, got ENOENT/],
    [{ ROCELAB_HTTP_LIMITS_MS: 'headers=soon' }, /ROCELAB_HTTP_LIMITS_MS=\\?"headers=soon\\?": expected KEY=MS/],
    [{ ROCELAB_CONNECT_TIMEOUT_MS: 'x' }, /ROCELAB_CONNECT_TIMEOUT_MS=\\?"x\\?": expected a number of milliseconds/],
    [{ ROCELAB_HANG_TIMEOUT_MS: '1000' }, /ROCELAB_HANG_TIMEOUT_MS=\\?"1000\\?": expected a whole number of milliseconds, at least 4000/],
  ] as const) {
    const r = await run(HOST, member({ ROCELAB_CONTROLLER: url, ...vars }));
    assert.equal(r.code, 2, `${JSON.stringify(vars)}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
});

test('the controller process: 2 for an empty token file, 1 for a port it cannot listen on', { timeout: 30_000 }, async () => {
  const empty = await run(CONTROLLER, { ROCELAB_TOPOLOGY: TREE, ROCELAB_POD_TOKEN_FILE: tokenFile('c-empty', ''), ROCELAB_CONTROLLER_HOST: '127.0.0.1', ROCELAB_CONTROLLER_PORT: '0' });
  assert.equal(empty.code, 2, empty.stderr);
  assert.match(empty.stderr, /got an empty file/);
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  try {
    const port = String((busy.address() as { port: number }).port);
    const inUse = await run(CONTROLLER, { ROCELAB_TOPOLOGY: TREE, ROCELAB_POD_TOKEN_FILE: tokenFile('c-ok', 'tok'), ROCELAB_CONTROLLER_HOST: '127.0.0.1', ROCELAB_CONTROLLER_PORT: port });
    assert.equal(inUse.code, 1, inUse.stderr);
    assert.match(inUse.stderr, /EADDRINUSE/);
  } finally {
    busy.close();
  }
});

test('rocelab run: a member process that fails makes the run exit 1 (not 2: the input was fine)', { timeout: 60_000 }, () => {
  // The members inherit this variable and refuse it (exit 2 each); the CLI itself does not read it.
  const r = cli(['run', TREE, '--mode', 'procs', '--duration', '1ms', '--json'], { ROCELAB_CONNECT_TIMEOUT_MS: 'x' });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /^rocelab: member \S+ exited with code 2$/m);
});

test('rocelab run: bad HTTP limits are bad input (2), named before anything starts', () => {
  const r = spawnSync(process.execPath, [join(ROOT, 'services', 'cli', 'dist', 'main.js'), 'run', TREE, '--mode', 'procs', '--duration', '1ms'], { cwd: ROOT, encoding: 'utf8', env: env({ ROCELAB_HTTP_LIMITS_MS: 'idle=-1' }), timeout: 30_000 });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^ROCELAB_HTTP_LIMITS_MS="idle=-1": expected KEY=MS/m);
});
