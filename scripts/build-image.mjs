#!/usr/bin/env node
/**
 * Builds the rocelab image from the staged app (.image/app, scripts/stage-image.mjs) through
 * the Engine API (dockerode), not the `docker build` CLI: the CLI prints a deprecation banner
 * for the classic builder unless the buildx plugin is installed, and Debian's Docker has none.
 * The build context is the Dockerfile and .image/app alone (.dockerignore says the same for the CLI); the base is NODE_IMAGE, and nothing is
 * pulled that the engine already has.
 *
 *   node scripts/build-image.mjs        # NODE_IMAGE (default node:20-bookworm-slim), ROCELAB_IMAGE (default rocelab:local)
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';
import tar from 'tar-fs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const nodeImage = process.env.NODE_IMAGE ?? 'node:20-bookworm-slim';
const image = process.env.ROCELAB_IMAGE ?? 'rocelab:local';
const docker = new Docker();

try {
  // The context as a tar of just these entries. (dockerode's own packing applies .dockerignore to
  // absolute paths, which drops every file under .image/app.)
  const context = tar.pack(ROOT, { entries: ['deploy/docker/Dockerfile', '.image/app'] });
  const stream = await docker.buildImage(context, { t: image, dockerfile: 'deploy/docker/Dockerfile', buildargs: { NODE_IMAGE: nodeImage }, rm: true, forcerm: true });
  const output = await new Promise((done, fail) => docker.modem.followProgress(stream, (err, res) => (err ? fail(err) : done(res))));
  const failed = output.find((line) => line.error !== undefined);
  if (failed !== undefined) throw new Error(failed.error);
  const id = output.map((line) => line.aux?.ID).find((x) => x !== undefined);
  process.stdout.write(`${image}${id === undefined ? '' : ` ${id}`}\n`);
} catch (err) {
  process.stderr.write(`build-image: building ${image} on ${nodeImage}: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
