#!/usr/bin/env node
/**
 * Stages the app for the rocelab image in .image/app: every workspace's package.json and
 * compiled dist/ (tests left out), the lockfile, and production dependencies only, installed
 * from the lockfile (`npm ci --omit=dev`, from npm's cache when it has them). Run after
 * `npm run build`; `npm run image` does both and builds the image.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, '.image', 'app');
const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
/** Workspaces whose code the image runs; the others only need to exist for `npm ci`. */
const SHIPPED = (ws) => ws.startsWith('packages/') || ws.startsWith('services/');

rmSync(join(ROOT, '.image'), { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
cpSync(join(ROOT, 'package.json'), join(OUT, 'package.json'));
cpSync(join(ROOT, 'package-lock.json'), join(OUT, 'package-lock.json'));
for (const ws of root.workspaces) {
  mkdirSync(join(OUT, ws), { recursive: true });
  cpSync(join(ROOT, ws, 'package.json'), join(OUT, ws, 'package.json'));
  if (!SHIPPED(ws)) continue;
  const dist = join(ROOT, ws, 'dist');
  if (!existsSync(dist)) {
    process.stderr.write(`stage-image: ${ws}/dist is missing: run \`npm run build\` first\n`);
    process.exit(2);
  }
  cpSync(dist, join(OUT, ws, 'dist'), {
    recursive: true,
    filter: (src) => !/\.test\.(js|d\.ts)(\.map)?$/.test(src) && !src.endsWith('.tsbuildinfo'),
  });
}
const npm = spawnSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: OUT, stdio: 'inherit' });
if (npm.status !== 0) {
  process.stderr.write(`stage-image: npm ci --omit=dev failed (exit ${npm.status})\n`);
  process.exit(1);
}
writeFileSync(join(ROOT, '.image', 'README'), 'Staged by scripts/stage-image.mjs for deploy/docker/Dockerfile; not committed.\n');
process.stdout.write(`${OUT}\n`);
