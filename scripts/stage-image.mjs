#!/usr/bin/env node
/**
 * Stages the app for the rocelab image in .image/app: every workspace's package.json and
 * compiled dist/ (tests left out), the lockfile, and production dependencies only, copied
 * from the install the build used as the lockfile lists them (no network). Run after
 * `npm run build`; `npm run image` does both and builds the image.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
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
// The production dependencies, copied from the install this build used: every package the
// lockfile does not mark dev-only, nested ones at their nested path, workspaces as the links npm
// makes. Nothing is fetched, so the image builds offline (`npm ci --omit=dev` would need the
// registry or its cache).
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
if (lock.lockfileVersion < 2) {
  process.stderr.write(`stage-image: package-lock.json version ${lock.lockfileVersion}: expected 2 or 3 (its "packages" map)\n`);
  process.exit(2);
}
let copied = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  if (!(path.startsWith('node_modules/') || path.includes('/node_modules/')) || entry.dev === true) continue;
  const target = join(OUT, path);
  mkdirSync(dirname(target), { recursive: true });
  if (entry.link === true) {
    symlinkSync(relative(dirname(target), join(OUT, entry.resolved)), target);
    continue;
  }
  const source = join(ROOT, path);
  if (!existsSync(source)) {
    // An optional dependency for another platform (esbuild's binaries) is not installed here: fine.
    if (entry.optional === true) continue;
    process.stderr.write(`stage-image: ${path} is not installed: run \`npm ci\` first\n`);
    process.exit(2);
  }
  // Its own nested node_modules are entries of their own, staged if they are production ones.
  cpSync(source, target, { recursive: true, filter: (src) => src === source || !relative(source, src).split(sep).includes('node_modules') });
  copied++;
}
writeFileSync(join(ROOT, '.image', 'README'), 'Staged by scripts/stage-image.mjs for deploy/docker/Dockerfile; not committed.\n');
process.stdout.write(`${OUT} (${copied} production packages)\n`);
