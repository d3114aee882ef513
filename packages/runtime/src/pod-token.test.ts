import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { DEV_POD_TOKEN } from './auth.js';
import { MAX_POD_TOKEN_FILE_BYTES, podToken, PodTokenError } from './pod-token.js';

const dir = mkdtempSync(join(tmpdir(), 'rocelab-token-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
};
const capture = () => {
  const lines: string[] = [];
  return { log: pino({ level: 'info' }, { write: (l: string) => lines.push(l) }), lines };
};
const refused = (env: NodeJS.ProcessEnv, message: RegExp) =>
  assert.throws(() => podToken(capture().log, env), (err: unknown) => err instanceof PodTokenError && message.test(err.message));

test('the token comes from ROCELAB_POD_TOKEN_FILE, without surrounding whitespace', () => {
  const { log, lines } = capture();
  assert.equal(podToken(log, { ROCELAB_POD_TOKEN_FILE: file('t', '  s3cret\n') }), 's3cret');
  assert.deepEqual(lines, []);
});

test('no file: the development token, with a warning; the development token in a file warns too', () => {
  const none = capture();
  assert.equal(podToken(none.log, {}), DEV_POD_TOKEN);
  assert.match(none.lines.join(''), /ROCELAB_POD_TOKEN_FILE is not set: using the development pod token/);
  const dev = capture();
  assert.equal(podToken(dev.log, { ROCELAB_POD_TOKEN_FILE: file('dev', `${DEV_POD_TOKEN}\n`) }), DEV_POD_TOKEN);
  assert.match(dev.lines.join(''), /holds the development token/);
});

test('a missing, empty, oversized or non-regular token file is refused with the variable and the path', () => {
  refused({ ROCELAB_POD_TOKEN_FILE: join(dir, 'nope') }, /^ROCELAB_POD_TOKEN_FILE=.*\/nope: expected a readable file holding the pod token, got ENOENT$/);
  refused({ ROCELAB_POD_TOKEN_FILE: file('empty', ' \n') }, /: expected the pod token, got an empty file$/);
  refused({ ROCELAB_POD_TOKEN_FILE: file('big', 'x'.repeat(MAX_POD_TOKEN_FILE_BYTES + 1)) }, /expected a pod token of at most 4096 bytes, got 4097$/);
  refused({ ROCELAB_POD_TOKEN_FILE: dir }, /expected a regular file holding the pod token, got a directory$/);
});

test('the token in the environment of a member or controller is refused, not used: it belongs in a file', () => {
  refused({ ROCELAB_POD_TOKEN: 's3cret' }, /^ROCELAB_POD_TOKEN is set in this process's environment.*expected the token in a file named by ROCELAB_POD_TOKEN_FILE/);
  const both = capture();
  assert.equal(podToken(both.log, { ROCELAB_POD_TOKEN: 'other', ROCELAB_POD_TOKEN_FILE: file('f', 'from-file') }), 'from-file');
  assert.match(both.lines.join(''), /ROCELAB_POD_TOKEN is ignored/);
});
