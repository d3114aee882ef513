import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const LOADER = fileURLToPath(new URL('./member-loader.cjs', import.meta.url));

/** A bundle that writes one letter and what CommonJS gives it, so a run shows which code ran. */
const bundleSaying = (letter: string): string => `require('node:fs').writeFileSync(process.env.OUT, '${letter}' + typeof module.exports + __filename.endsWith('x.bundle.cjs'));\n`;

test('the member loader runs a bundle, leaves its code cache, starts from it, and never runs the code of an older bundle', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-loader-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const bundle = join(dir, 'x.bundle.cjs');
  const out = join(dir, 'out');
  const run = (): string => {
    const r = spawnSync(process.execPath, [LOADER, bundle], { env: { ...process.env, OUT: out }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return readFileSync(out, 'utf8');
  };
  const caches = (): string[] => readdirSync(dir).filter((name) => name.endsWith('.v8cache'));

  writeFileSync(bundle, bundleSaying('A'));
  assert.equal(run(), 'Aobjecttrue');
  const [first] = caches();
  assert.ok(first !== undefined && caches().length === 1, `one cache after the first run: ${caches().join(', ')}`);
  const made = statSync(join(dir, first)).mtimeMs;

  assert.equal(run(), 'Aobjecttrue');
  assert.equal(statSync(join(dir, first)).mtimeMs, made, 'a cache V8 accepted is not written again');

  writeFileSync(join(dir, first), 'not a code cache');
  assert.equal(run(), 'Aobjecttrue', 'a damaged cache is refused and the bundle compiled');
  assert.notEqual(readFileSync(join(dir, first), 'utf8'), 'not a code cache', 'and the cache made again');

  // V8 checks a cache against the source's length only: a rebuilt bundle of the same length.
  writeFileSync(bundle, bundleSaying('B'));
  assert.equal(run(), 'Bobjecttrue', 'the new bundle ran, not the cached old one');
  assert.equal(caches().length, 1, 'the old bundle\'s cache is gone');
  assert.notEqual(caches()[0], first);
});

test('the member loader without a bundle says what it expects', () => {
  const r = spawnSync(process.execPath, [LOADER], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /expected the path of a member bundle/);
});
