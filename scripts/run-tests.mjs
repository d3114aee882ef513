#!/usr/bin/env node
// Runs every compiled test file (`dist/**/*.test.js` in each workspace) under Node's built-in
// test runner and exits with its status. Node 20's --test takes no globs, so we list the files.
//
//   node scripts/run-tests.mjs [--unit] [--list] [SUBSTRING …]
//
// --unit (`npm run test:quick`): only the packages' and services' own tests, beside their code;
// they start no pod and no container. The cross-service tests of test/ (whole pods, processes,
// Docker) are left out. --list prints the files it would run, one per line, and runs none.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const roots = ['packages', 'services'].flatMap((dir) =>
  readdirSync(join(root, dir)).map((name) => join(root, dir, name, 'dist')),
);
const args = process.argv.slice(2);
const unit = args.includes('--unit');
const list = args.includes('--list');
if (!unit) roots.push(join(root, 'test', 'dist'));

function collect(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const filter = args.filter((a) => a !== '--unit' && a !== '--list');
let files = roots.flatMap((dir) => collect(dir, [])).sort();
if (filter.length > 0) files = files.filter((f) => filter.some((part) => f.includes(part)));
if (files.length === 0) {
  console.error('run-tests: no compiled test files found (did the build run?)');
  process.exit(1);
}
if (list) {
  for (const f of files) console.log(relative(root, f));
  process.exit(0);
}
const reporter = process.env.ROCELAB_TEST_REPORTER ?? 'spec';
console.error(`run-tests: ${files.length} files${unit ? ' (unit tests only)' : ''}`);
const result = spawnSync(
  process.execPath,
  ['--test', `--test-reporter=${reporter}`, '--test-concurrency=2', ...files.map((f) => relative(root, f))],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
