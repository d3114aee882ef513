/**
 * How a member or controller process learns the pod token: from a file, never from its
 * environment. Any process of the same user can read `/proc/PID/environ`, and `docker inspect`
 * shows a container's environment to anyone with the Docker socket; a file can be private to
 * the process's user (`rocelab run`/`up`: 0600 in a 0700 directory; `--mode docker`: a
 * read-only bind mount for uid 10001; compose: a secret at /run/secrets/rocelab_pod_token).
 *
 *   ROCELAB_POD_TOKEN_FILE   path of a file holding the token (surrounding whitespace ignored)
 *
 * Without it the development token is used, with a warning. ROCELAB_POD_TOKEN is the user's
 * way to give the token to the `rocelab` CLI (run, up, fault); a member or controller that
 * finds it in its environment refuses to start rather than use it or silently fall back to
 * the development token: the token would be exactly where this is meant to keep it out of.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Logger } from '@rocelab/telemetry';
import { CONTAINER_TOKEN_FILE } from '@rocelab/topology';
import { DEV_POD_TOKEN } from './auth.js';

export const POD_TOKEN_FILE_ENV = 'ROCELAB_POD_TOKEN_FILE';

/** Where containers find the token (compose's secret, `--mode docker`'s bind mount). */
export const CONTAINER_POD_TOKEN_FILE = CONTAINER_TOKEN_FILE;

/** A token is a line of text; a bigger file is not a token file (and /dev/zero is not read forever). */
export const MAX_POD_TOKEN_FILE_BYTES = 4096;

/** The token cannot be had: bad input, exit 2 (docs/errors.md, "The pod token"). */
export class PodTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PodTokenError';
  }
}

const DEV_WARNING = 'using the development pod token: anyone who knows it can join this pod';

/** The pod token of this process; throws PodTokenError when the file cannot be used. */
export function podToken(log: Logger, env: NodeJS.ProcessEnv = process.env): string {
  const file = env[POD_TOKEN_FILE_ENV];
  if (file === undefined || file === '') {
    if (env.ROCELAB_POD_TOKEN !== undefined && env.ROCELAB_POD_TOKEN !== '') {
      throw new PodTokenError(
        `ROCELAB_POD_TOKEN is set in this process's environment, where any process of the same user can read it: expected the token in a file named by ${POD_TOKEN_FILE_ENV} (rocelab run and up write one for their children)`,
      );
    }
    log.warn(`${POD_TOKEN_FILE_ENV} is not set: ${DEV_WARNING}`);
    return DEV_POD_TOKEN;
  }
  const token = readTokenFile(file).trim();
  if (token === '') throw new PodTokenError(`${POD_TOKEN_FILE_ENV}=${file}: expected the pod token, got an empty file`);
  if (env.ROCELAB_POD_TOKEN !== undefined && env.ROCELAB_POD_TOKEN !== '') log.warn(`ROCELAB_POD_TOKEN is ignored: the token comes from ${POD_TOKEN_FILE_ENV}`);
  if (token === DEV_POD_TOKEN) log.warn(`${file} holds the development token: ${DEV_WARNING}`);
  return token;
}

function readTokenFile(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw new PodTokenError(`${POD_TOKEN_FILE_ENV}=${file}: expected a readable file holding the pod token, got ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new PodTokenError(`${POD_TOKEN_FILE_ENV}=${file}: expected a regular file holding the pod token, got ${stat.isDirectory() ? 'a directory' : 'another kind of file'}`);
    if (stat.size > MAX_POD_TOKEN_FILE_BYTES) throw new PodTokenError(`${POD_TOKEN_FILE_ENV}=${file}: expected a pod token of at most ${MAX_POD_TOKEN_FILE_BYTES} bytes, got ${stat.size}`);
    const buffer = Buffer.alloc(MAX_POD_TOKEN_FILE_BYTES + 1);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
