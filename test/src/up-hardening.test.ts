/**
 * `rocelab up` with the user's token in ROCELAB_POD_TOKEN: no child process has it in its
 * environment (`/proc/PID/environ` is readable by the same user); each reads it from a private
 * file that is gone once the pod stops. Under a high dilation, /status and `rocelab status` say
 * that a lease is held for pacing and until when.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'node:test';
import { CLI, ROOT } from './harness.js';

const TOKEN = 'a-token-only-the-user-knows-4f1c9e';

/** Direct children of `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        // pid (comm) state ppid …: comm may hold spaces, so split after its closing parenthesis.
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

const environ = (pid: number): string[] => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);

test('rocelab up: children read the pod token from a private file, never from their environment; status tells when pacing holds a lease', { timeout: 90_000 }, async () => {
  const child = spawn(process.execPath, [CLI, 'up', 'test/fixtures/tree.yaml', '--dilation', '1000000'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: { ...process.env, ROCELAB_POD_TOKEN: TOKEN },
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('Ctrl-C stops the pod.')) resolve();
      });
      child.once('exit', () => reject(new Error(`rocelab up exited early:\n${out}`)));
      setTimeout(() => reject(new Error(`rocelab up did not start within 30 s:\n${out}`)), 30_000).unref();
    });
    const children = childrenOf(child.pid!);
    for (const pid of children) assert.ok(!environ(pid).some((v) => v.includes(TOKEN)), `process ${pid} has the token in its environment`);
    // Beside the members, the pod's janitor (pod-janitor.ts), whose environment is PATH alone.
    const members = children.filter((pid) => environ(pid).some((v) => v.startsWith('ROCELAB_MEMBER=')));
    assert.equal(members.length, 6, 'one process per node');
    let tokenFile: string | null = null;
    for (const pid of members) {
      const env = environ(pid);
      assert.ok(!env.some((v) => v.includes(TOKEN)), `process ${pid} has the token in its environment`);
      assert.ok(!env.some((v) => v.startsWith('ROCELAB_POD_TOKEN=')));
      const file = env.find((v) => v.startsWith('ROCELAB_POD_TOKEN_FILE='))?.slice('ROCELAB_POD_TOKEN_FILE='.length);
      assert.ok(file !== undefined, `process ${pid} is told where the token is`);
      tokenFile ??= file;
      assert.equal(file, tokenFile, 'one file for the pod');
    }
    assert.equal(readFileSync(tokenFile!, 'utf8').trim(), TOKEN);
    assert.equal(statSync(tokenFile!).mode & 0o777, 0o600, 'the file: its owner only');
    assert.equal(statSync(dirname(tokenFile!)).mode & 0o777, 0o700, 'its directory: its owner only');

    // The members authenticated with it: the pod runs, and the fault API takes the user's token.
    const httpUrl = /^controller\s+(http:\/\/\S+)\/status/m.exec(out)![1]!;
    const faults = await fetch(`${httpUrl}/faults`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(faults.status, 200);

    // Dilation 10^6: a 1 µs window takes a wall second, so a lease is held nearly all the time.
    let view: { state: string; windowsPerSecond: number; virtualPs: number; pacing: { lease: number; leaseStartPs: number; leaseEndPs: number; releaseInSeconds: number; releaseAt: string } | null } | null = null;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      view = (await (await fetch(`${httpUrl}/status`)).json()) as typeof view;
      if (view!.pacing !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const pacing = view!.pacing!;
    assert.ok(pacing !== null, 'a lease is held for pacing');
    assert.equal(view!.state, 'running');
    assert.ok(pacing.leaseStartPs >= view!.virtualPs && pacing.leaseEndPs > pacing.leaseStartPs, JSON.stringify(view));
    assert.ok(pacing.releaseInSeconds >= 0 && pacing.releaseInSeconds <= 5, `released within seconds: ${pacing.releaseInSeconds}`);
    const at = Date.parse(pacing.releaseAt);
    assert.ok(at >= Date.now() - 2_000 && at <= Date.now() + 6_000, pacing.releaseAt);
    // The moment between a release and the next hold is short; ask again if it fell there.
    let text = '';
    for (let i = 0; i < 5 && !text.includes('\npacing'); i++) {
      const r = spawnSync(process.execPath, [CLI, 'status', '--controller', httpUrl], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
      assert.equal(r.status, 0, r.stderr);
      text = r.stdout;
    }
    assert.match(text, /^pacing +held: lease \d+ \([\d.]+ ms → [\d.]+ ms virtual\) goes out in [\d.]+ s, at \S+Z \(dilation 1000000: the pod is on time and waits for the wall clock\)$/m);

    process.kill(-child.pid!, 'SIGINT');
    assert.equal(await exited, 0);
    assert.equal(existsSync(dirname(tokenFile!)), false, 'the token file is gone with the pod');
  } finally {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  }
});
