/**
 * What the README and the guides it links (docs/*.md, `readme-pages.ts`) say about the
 * repository stays true (issue 22, what a newcomer met): every
 * file its commands name exists, the fast tier it names is what it says (each package's unit
 * tests, none of test/), and every wall-clock figure it gives for start-up and drills is one
 * `npm run bench` measures, cited by its field. The figures themselves are measurements, quoted
 * with the machine they came from; tests never assert speed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { ROOT } from './harness.js';
import { readmePages, readmeText } from './readme-pages.js';

/** The README and its guides: the claims this file checks live in both. */
const README = readmeText();

test('every repository file the README and its guides name exists (deploy/pods/clos128.yaml included)', () => {
  assert.ok(readmePages().length > 5, 'the README links its guides');
  // Paths under the repository's folders with a file extension; not outputs (out/…) or cluster objects (deploy/controller).
  const named = [...README.matchAll(/(?<![\w./-])((?:deploy|drills|test|examples|bench|packages|services|scripts|docs|\.ci)\/[\w./-]*\.(?:ya?ml|sh|mjs|cjs|ts|md|json|txt))\b/g)].map((m) => m[1]!);
  assert.ok(named.includes('deploy/pods/clos128.yaml') && named.includes('deploy/pods/default.yaml'), 'the pods the README runs are among them');
  assert.deepEqual([...new Set(named.filter((p) => !existsSync(join(ROOT, p))))], []);
});

function compiledTests(dir: string, out: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) compiledTests(path, out);
    else if (name.endsWith('.test.js')) out.push(relative(ROOT, path));
  }
  return out;
}

test('npm run test:quick, which the README names, runs every package\'s and service\'s unit tests and none of test/', () => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  assert.equal(scripts['test:quick'], 'npm run build && node scripts/run-tests.mjs --unit');
  assert.match(README, /npm run test:quick/);
  const listed = spawnSync(process.execPath, ['scripts/run-tests.mjs', '--unit', '--list'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(listed.status, 0, listed.stderr);
  const files = listed.stdout.split('\n').filter(Boolean).sort();
  const expected = ['packages', 'services'].flatMap((group) => readdirSync(join(ROOT, group)).flatMap((name) => compiledTests(join(ROOT, group, name, 'dist')))).sort();
  assert.ok(expected.length > 100, `the packages have their unit tests (${expected.length})`);
  assert.deepEqual(files, expected);
  assert.ok(compiledTests(join(ROOT, 'test', 'dist')).every((f) => !files.includes(f)));
});

test('every start-up and drill duration in the README and its guides cites the npm run bench field that measures it, and names the machine', () => {
  // No unmeasured figures: "~5 s", "some 4 s".
  assert.doesNotMatch(README, /~\s?\d+(\.\d+)? ?s\b/, 'a "~N s" figure');
  assert.doesNotMatch(README, /some \d+(\.\d+)? ?s\b/, 'a "some N s" figure');
  const benchSource = readFileSync(join(ROOT, 'bench', 'src', 'readme.ts'), 'utf8') + readFileSync(join(ROOT, 'bench', 'src', 'bench.ts'), 'utf8');
  const cited = [...README.matchAll(/`readme\.([\w.-]+)`/g)].map((m) => m[1]!);
  for (const field of ['startupSeconds.up', 'drillSeconds']) assert.ok(cited.some((c) => c.startsWith(field)), `the README cites readme.${field}`);
  for (const c of cited) {
    for (const key of c.split('.')) assert.ok(benchSource.includes(key), `readme.${c}: bench/src has no field ${key}`);
  }
  // A drill command gives no duration of its own; the figures come from the bench.
  assert.deepEqual([...README.matchAll(/^npx rocelab drill run .*#.*\b\d+(?:\.\d+)? s\b.*$/gm)].map((m) => m[0]), []);
  // A clause that quotes a figure of these fields in seconds names the machine it was measured on.
  for (const clause of README.split(/[.;]\s/).filter((c) => /`readme\.[\w.-]+`/.test(c) && /\b\d+(?:\.\d+)? s\b/.test(c))) assert.match(clause, /idle 2-core/, clause.slice(0, 200));
});
