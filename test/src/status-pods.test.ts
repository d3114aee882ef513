/**
 * `rocelab status` with no options finds the pod this user's `rocelab up` runs from its record
 * (docs/local-pod.md: "npx rocelab status (in another terminal, no options)"). With two pods running it
 * shows the one started last and says, on stderr, which it found, which others run, and how to
 * choose; with one, it reads exactly as before. A real controller answers (one that no member
 * has joined yet: `starting`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Controller } from '@rocelab/controller';
import { loadTopologyFile } from '@rocelab/topology';
import { pino } from 'pino';
import { cliAsync, fixture } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'rocelab-status-pods-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A record as `rocelab up` writes it (services/cli/src/pod-record.ts), for a process that is alive. */
function record(pod: string, controller: string, pid: number, startedAt: string): void {
  writeFileSync(join(dir, `up-${pid}.json`), `${JSON.stringify({ pod, controller, pid, startedAt })}\n`, { mode: 0o600 });
}

test('rocelab status without options: one pod as documented; with two, the newest, and a note naming both and --controller', { timeout: 60_000 }, async () => {
  const pod = loadTopologyFile(fixture('tree.yaml'));
  const controller = new Controller({ pod, seed: pod.seed, durationPs: null, dilation: 10_000, token: 'status-pods-test', expected: null, mode: 'procs', log: pino({ level: 'silent' }) });
  const { httpUrl } = await controller.listen();
  const env = { ROCELAB_STATE_DIR: dir, ROCELAB_CONTROLLER: '' };
  try {
    record('tree', httpUrl, process.pid, '2026-01-01T10:00:05.000Z');
    const one = await cliAsync(['status'], env, 30_000);
    assert.equal(one.status, 0, one.stderr);
    assert.match(one.stdout, /^pod +tree: starting$/m);
    assert.equal(one.stderr, '', 'one pod: nothing to choose');

    // Another pod of this user, started earlier (its process: this test's parent, alive; nothing listens at its address).
    record('default', 'http://127.0.0.1:9', process.ppid, '2026-01-01T10:00:01.000Z');
    const two = await cliAsync(['status'], env, 30_000);
    assert.equal(two.status, 0, two.stderr);
    assert.match(two.stdout, /^pod +tree: starting$/m, 'the pod started last');
    assert.equal(
      two.stderr,
      [
        'rocelab status: 2 pods run under rocelab up for this user; this is tree, the one started last (*):',
        `    default  http://127.0.0.1:9  (rocelab up, process ${process.ppid}, since 2026-01-01T10:00:01.000Z)`,
        `  * tree  ${httpUrl}  (rocelab up, process ${process.pid}, since 2026-01-01T10:00:05.000Z)`,
        'choose one with --controller URL (or ROCELAB_CONTROLLER=URL)',
        '',
      ].join('\n'),
    );
    const json = await cliAsync(['status', '--json'], env, 30_000);
    assert.equal(json.stdout.trim().split('\n').length, 1, '--json stays one line on stdout');
    assert.equal((JSON.parse(json.stdout) as { pod: string }).pod, 'tree');
    // Choosing the other one: it does not answer, and the message says where it looked.
    const other = await cliAsync(['status', '--controller', 'http://127.0.0.1:9'], env, 30_000);
    assert.equal(other.status, 1);
    assert.match(other.stderr, /^rocelab status: no controller answers at http:\/\/127\.0\.0\.1:9\/status, --controller/);
  } finally {
    await controller.close();
  }
});
