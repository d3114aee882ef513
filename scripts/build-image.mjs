#!/usr/bin/env node
/**
 * Builds the rocelab image from the staged app (.image/app, scripts/stage-image.mjs) with
 * BuildKit where the Docker CLI has it (`docker buildx build --load`), and with the classic
 * `docker build` otherwise (Docker 20.10 without buildx): Docker 23+ prints a deprecation
 * banner for the classic builder. Either way the base is NODE_IMAGE and nothing is pulled that
 * the engine already has.
 *
 *   node scripts/build-image.mjs        # NODE_IMAGE (default node:20-bookworm-slim), ROCELAB_IMAGE (default rocelab:local)
 */
import { spawnSync } from 'node:child_process';

const nodeImage = process.env.NODE_IMAGE ?? 'node:20-bookworm-slim';
const image = process.env.ROCELAB_IMAGE ?? 'rocelab:local';
const common = ['-q', '-f', 'deploy/docker/Dockerfile', '--build-arg', `NODE_IMAGE=${nodeImage}`, '-t', image, '.'];
const buildx = spawnSync('docker', ['buildx', 'version'], { stdio: 'ignore' }).status === 0;
const args = buildx ? ['buildx', 'build', '--load', ...common] : ['build', ...common];
const run = spawnSync('docker', args, { stdio: 'inherit' });
if (run.status !== 0) {
  process.stderr.write(`build-image: docker ${args.join(' ')} failed (exit ${run.status ?? run.signal})\n`);
  process.exit(1);
}
